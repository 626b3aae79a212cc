// The methods cosima ships: one registration each (method_registry.hpp). Each function is defined
// in its method's file.
namespace cosima::methods {

void register_explicit_coupling();  // jacobi, gauss-seidel (explicit_coupling.cpp)
void register_ifosmondi();          // ifosmondi, ifosmondi-jfm (ifosmondi.cpp)
void register_missiles();           // missiles.cpp
void register_defect_jacobi();      // defect_jacobi.cpp
void register_monolithic();         // monolithic.cpp

void register_builtin_methods() {
  register_explicit_coupling();
  register_monolithic();
  register_defect_jacobi();
  register_missiles();
  register_ifosmondi();
}

}  // namespace cosima::methods
