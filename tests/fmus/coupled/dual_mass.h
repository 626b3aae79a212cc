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

/* Mass 1's right-hand side: x = (s1, v1). */
typedef struct {
  double m, c, d, force;
} mass1_parameters;

static inline void mass1_rhs(const double x[2], const void *p, double dx[2]) {
  const mass1_parameters *q = p;
  dx[0] = x[1];
  dx[1] = (-q->c * x[0] - q->d * x[1] + q->force) / q->m;
}

/* Mass 2's coupling force and right-hand side: x = (s2, v2), s1 and v1 its inputs. */
typedef struct {
  double m, c2, d2, c3, d3, s1, v1;
} mass2_parameters;

static inline double mass2_force(const double x[2], const mass2_parameters *q) {
  return q->c2 * (x[0] - q->s1) + q->d2 * (x[1] - q->v1);
}

static inline void mass2_rhs(const double x[2], const void *p, double dx[2]) {
  const mass2_parameters *q = p;
  dx[0] = x[1];
  dx[1] = (-mass2_force(x, q) - q->c3 * x[0] - q->d3 * x[1]) / q->m;
}

/* A Co-Simulation step of size h with the inputs held: DUAL_MASS_SUBSTEPS RK4 steps. */
static inline void dual_mass_step(double x[2], double h, void (*f)(const double x[2], const void *p, double dx[2]),
                                  const void *p) {
  for (int k = 0; k < DUAL_MASS_SUBSTEPS; ++k) dual_mass_rk4(x, h / DUAL_MASS_SUBSTEPS, f, p);
}

#endif
