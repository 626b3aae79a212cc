/* The two-mass oscillator of cosima's initialization tests (tests/fmi/test_initialization.cpp), split
 * as a peer master's standard regression test splits it into two FMUs:
 *   mass 1:  s1' = v1,  m1 v1' = -c1 s1 - d1 v1 + F                      (outputs s1, v1, a1 = v1')
 *   mass 2:  s2' = v2,  m2 v2' = -F - c3 s2 - d3 v2,  F = c2 (s2 - s1) + d2 (v2 - v1)   (output F)
 * Mass 2 computes its initial position from its input during Initialization Mode (an initial
 * equation s2 = s1 + offset), so a master that exchanges nothing there starts it where s1's start
 * value puts it. As Co-Simulation, fmi2DoStep integrates with the inputs held: kSubsteps classical
 * Runge-Kutta steps. */
#ifndef COSIMA_TEST_DUAL_MASS_H
#define COSIMA_TEST_DUAL_MASS_H

enum { DUAL_MASS_SUBSTEPS = 20 };

/* One RK4 step of x' = f(x) for two states. */
static inline void dual_mass_rk4(double x[2], double h, void (*f)(const double x[2], const void *p, double dx[2]),
                                 const void *p) {
  double k1[2], k2[2], k3[2], k4[2], y[2];
  f(x, p, k1);
  for (int i = 0; i < 2; ++i) y[i] = x[i] + 0.5 * h * k1[i];
  f(y, p, k2);
  for (int i = 0; i < 2; ++i) y[i] = x[i] + 0.5 * h * k2[i];
  f(y, p, k3);
  for (int i = 0; i < 2; ++i) y[i] = x[i] + h * k3[i];
  f(y, p, k4);
  for (int i = 0; i < 2; ++i) x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

#endif
