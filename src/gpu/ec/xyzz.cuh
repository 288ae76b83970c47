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
 *
 * The additions take their products two at a time (prod2, sqr2): with
 * PAIRED, each pair of independent products is one F::mul2, whose rows
 * interleave (four carry chains for the scheduler instead of two, and one
 * call instead of two); without, two plain products or squares (the
 * square's own, mont.cuh). Measured on the H200:
 * PAIRED takes the batch addition from 84.8 to 70.0 ms in a 32 GiB
 * partition, but the MSM sweep from 114.3 to 119.3 ms at 2^24 (184
 * registers instead of 168: 8 warps per SM instead of 12; still 117.2 ms
 * when held at 168), so the MSM adds unpaired.
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

/* A hint that *p will be read soon: its lines are brought into L2 while
 * the current addition runs (a device no-op on the host). */
template <class F> HD void affine_prefetch(const affine_d<F> *p)
{
#ifdef __CUDA_ARCH__
    const char *c = (const char *)p;
    for (size_t o = 0; o < sizeof *p; o += 32)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(c + o));
#else
    (void)p;
#endif
}

/* r0 = a0 b0, r1 = a1 b1: in one F::mul2 (PAIRED) or as two products. */
template <bool PAIRED, class F>
HD void prod2(F &r0, const F &a0, const F &b0, F &r1, const F &a1, const F &b1)
{
    if constexpr (PAIRED) {
        F::mul2(r0, a0, b0, r1, a1, b1);
    } else {
        F t = a0 * b0;
        r1 = a1 * b1;
        r0 = t;
    }
}

/* r0 = a0^2, r1 = a1^2: one F::mul2 (PAIRED) or two squares. */
template <bool PAIRED, class F> HD void sqr2(F &r0, const F &a0, F &r1, const F &a1)
{
    if constexpr (PAIRED) {
        F::mul2(r0, a0, a0, r1, a1, a1);
    } else {
        F t = a0.sqr();
        r1 = a1.sqr();
        r0 = t;
    }
}

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
    template <bool PAIRED = false> HD void add_affine(const affine_d<F> &q)
    {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(q);
            return;
        }
        F u2, s2, pp, rr, ppp, qq, t, u;
        prod2<PAIRED>(u2, q.x, zz, s2, q.y, zzz);
        F p = u2 - x, r = s2 - y;
        if (p.is_zero()) {
            *this = r.is_zero() ? dbl_affine(q) : inf();
            return;
        }
        sqr2<PAIRED>(pp, p, rr, r);
        prod2<PAIRED>(ppp, p, pp, qq, x, pp);
        F x3 = rr - ppp - qq.dbl();
        prod2<PAIRED>(t, r, qq - x3, u, y, ppp);
        y = t - u;
        x = x3;
        prod2<PAIRED>(t, zz, pp, u, zzz, ppp);
        zz = t;
        zzz = u;
    }

    /* add-2008-s, 12M+2S: U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2,
     * S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1, then as madd with
     * ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP. */
    template <bool PAIRED = false> HD void add(const xyzz_d &q)
    {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = q;
            return;
        }
        F u1, s1, u2, s2, pp, rr, ppp, qq, t, u;
        prod2<PAIRED>(u1, x, q.zz, s1, y, q.zzz);
        prod2<PAIRED>(u2, q.x, zz, s2, q.y, zzz);
        F p = u2 - u1, r = s2 - s1;
        if (p.is_zero()) {
            *this = r.is_zero() ? dbl() : inf();
            return;
        }
        sqr2<PAIRED>(pp, p, rr, r);
        prod2<PAIRED>(ppp, p, pp, qq, u1, pp);
        x = rr - ppp - qq.dbl();
        prod2<PAIRED>(t, r, qq - x, u, s1, ppp);
        y = t - u;
        prod2<PAIRED>(t, zz, q.zz, u, zzz, q.zzz);
        prod2<PAIRED>(zz, t, pp, zzz, u, ppp);
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
