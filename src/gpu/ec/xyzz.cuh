/*
 * xyzz.cuh - the short Weierstrass group law y^2 = x^3 + b (a = 0) on the
 * device, written once over a field type F (fp_d for G1, fp2_d for G2).
 *
 * affine_d<F> is (x, y) with (0, 0) for infinity, the layout of the CPU
 * g1_affine_t / g2_affine_t. xyzz_d<F> is (X, Y, ZZ, ZZZ) with x = X/ZZ,
 * y = Y/ZZZ and ZZ = 0 for infinity (the CPU g1_xyzz_t layout). XYZZ costs
 * 8M+2S to add an affine point and needs no b, which is why the MSM
 * buckets use it. Formulas: Bernstein-Lange EFD "xyzz" (madd-2008-s,
 * add-2008-s, dbl-2008-s-1, mdbl-2008-s-1), with the special cases (an
 * operand at infinity, P = Q, P = -Q) handled explicitly.
 */
#ifndef CUZK_GPU_EC_XYZZ_CUH
#define CUZK_GPU_EC_XYZZ_CUH

#include "gpu/ff/fp2.cuh"

template <class F> struct __align__(16) affine_d
{
    F x, y;
    HD bool is_inf() const
    {
        return x.is_zero() && y.is_zero();
    }
};

template <class F> struct __align__(16) xyzz_d
{
    F x, y, zz, zzz;

    HD static xyzz_d inf()
    {
        return {F::zero(), F::zero(), F::zero(), F::zero()};
    }
    HD bool is_inf() const
    {
        return zz.is_zero();
    }
    HD static xyzz_d from_affine(const affine_d<F> &p)
    {
        if (p.is_inf()) return inf();
        return {p.x, p.y, F::one(), F::one()};
    }

    /* dbl-2008-s-1, 6M+3S: U = 2Y, V = U^2, W = U V, S = X V, M = 3 X^2,
     * X3 = M^2 - 2S, Y3 = M (S - X3) - W Y, ZZ3 = V ZZ, ZZZ3 = W ZZZ. */
    HD xyzz_d dbl() const
    {
        if (is_inf()) return *this;
        F u = y.dbl(), v = u.sqr(), w = u * v, s = x * v, xx = x.sqr();
        F m = xx.dbl() + xx;
        xyzz_d r;
        r.x = m.sqr() - s.dbl();
        r.y = m * (s - r.x) - w * y;
        r.zz = v * zz;
        r.zzz = w * zzz;
        return r;
    }

    /* mdbl-2008-s-1: the same with ZZ = ZZZ = 1 (affine input), 4M+3S. */
    HD static xyzz_d dbl_affine(const affine_d<F> &p)
    {
        F u = p.y.dbl(), v = u.sqr(), w = u * v, s = p.x * v, xx = p.x.sqr();
        F m = xx.dbl() + xx;
        xyzz_d r;
        r.x = m.sqr() - s.dbl();
        r.y = m * (s - r.x) - w * p.y;
        r.zz = v;
        r.zzz = w;
        return r;
    }

    /* madd-2008-s, 8M+2S: U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1,
     * R = S2 - Y1, PP = P^2, PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q,
     * Y3 = R (Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP. */
    HD void add_affine(const affine_d<F> &q)
    {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(q);
            return;
        }
        F p = q.x * zz - x, r = q.y * zzz - y;
        if (p.is_zero()) {
            *this = r.is_zero() ? dbl_affine(q) : inf();
            return;
        }
        F pp = p.sqr(), ppp = p * pp, qq = x * pp;
        F x3 = r.sqr() - ppp - qq.dbl();
        y = r * (qq - x3) - y * ppp;
        x = x3;
        zz *= pp;
        zzz *= ppp;
    }

    /* add-2008-s, 12M+2S: U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2,
     * S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1, then as madd with
     * ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP. */
    HD void add(const xyzz_d &q)
    {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = q;
            return;
        }
        F u1 = x * q.zz, s1 = y * q.zzz;
        F p = q.x * zz - u1, r = q.y * zzz - s1;
        if (p.is_zero()) {
            *this = r.is_zero() ? dbl() : inf();
            return;
        }
        F pp = p.sqr(), ppp = p * pp, qq = u1 * pp;
        x = r.sqr() - ppp - qq.dbl();
        y = r * (qq - x) - s1 * ppp;
        zz = zz * q.zz * pp;
        zzz = zzz * q.zzz * ppp;
    }

    /* k * this for a small k (double and add from the top bit). */
    HD xyzz_d mul_small(uint32_t k) const
    {
        xyzz_d acc = inf();
        int top = 31;
        while (top > 0 && !((k >> top) & 1)) top--;
        for (int i = top; i >= 0; i--) {
            acc = acc.dbl();
            if ((k >> i) & 1) acc.add(*this);
        }
        return k ? acc : inf();
    }

    /* Jacobian (X ZZ^2, Y ZZZ^2, ZZZ): x = X ZZ^2 / ZZZ^2 = X / ZZ since
     * ZZZ^2 = ZZ^3, and y = Y ZZZ^2 / ZZZ^3 = Y / ZZZ. */
    HD void to_jac(F * jx, F * jy, F * jz) const
    {
        *jx = x * zz.sqr();
        *jy = y * zzz.sqr();
        *jz = zzz;
    }
};

#endif
