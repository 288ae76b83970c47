/*
 * json.c - snarkjs' proof.json, public.json and verification_key.json.
 * Numbers are decimal strings of canonical field elements. Parsing uses
 * yajl's tree API (these files are a few kilobytes).
 */
#include "cuzk/snarkjs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "cuzk/file.h"

typedef unsigned __int128 u128;

/* ---- decimal <-> limbs ---- */

/* Writes the decimal form of n little-endian limbs into out (>= 20 n + 1 bytes). */
static void limbs_to_decimal(char *out, const uint64_t *in, int n)
{
    uint64_t t[6];
    memcpy(t, in, sizeof(uint64_t) * (size_t)n);
    char rev[130];
    int len = 0;
    for (;;) {
        u128 rem = 0; /* t /= 10^19, chunk = remainder */
        int nonzero = 0;
        for (int i = n - 1; i >= 0; i--) {
            u128 cur = (rem << 64) | t[i];
            t[i] = (uint64_t)(cur / 10000000000000000000ull);
            rem = cur % 10000000000000000000ull;
            nonzero |= t[i] != 0;
        }
        uint64_t chunk = (uint64_t)rem;
        for (int d = 0; d < 19 && (nonzero || chunk || d == 0); d++) {
            rev[len++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
        if (!nonzero) break;
    }
    for (int i = 0; i < len; i++) out[i] = rev[len - 1 - i];
    out[len] = 0;
}

/* Parses a decimal string into n limbs; false on a non-digit or overflow. */
static bool decimal_to_limbs(uint64_t *out, const char *s, int n)
{
    memset(out, 0, sizeof(uint64_t) * (size_t)n);
    if (!*s || strlen(s) > 120) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        u128 carry = (u128)(*s - '0');
        for (int i = 0; i < n; i++) {
            carry += (u128)out[i] * 10;
            out[i] = (uint64_t)carry;
            carry >>= 64;
        }
        if (carry) return false;
    }
    return true;
}

/* ---- writers ---- */

static void fp_decimal(char *out, const fp_t *x)
{
    uint64_t l[FP_LIMBS];
    fp_to_canonical(l, x);
    limbs_to_decimal(out, l, FP_LIMBS);
}

static void put_g1(FILE *f, const char *name, const g1_affine_t *p, const char *end)
{
    char x[130], y[130];
    fp_decimal(x, &p->x);
    fp_decimal(y, &p->y);
    fprintf(f, " \"%s\": [\n  \"%s\",\n  \"%s\",\n  \"1\"\n ]%s\n", name, x, y, end);
}

static void put_g2(FILE *f, const char *name, const g2_affine_t *p, const char *end)
{
    char a[130], b[130], c[130], d[130];
    fp_decimal(a, &p->x.c0);
    fp_decimal(b, &p->x.c1);
    fp_decimal(c, &p->y.c0);
    fp_decimal(d, &p->y.c1);
    fprintf(f,
            " \"%s\": [\n  [\n   \"%s\",\n   \"%s\"\n  ],\n  [\n   \"%s\",\n   \"%s\"\n  ],\n"
            "  [\n   \"1\",\n   \"0\"\n  ]\n ]%s\n",
            name, a, b, c, d, end);
}

static int write_text(const char *path, char *text, size_t len, cuzk_err *err)
{
    int rc = cuzk_write_file(path, text, len, err);
    free(text);
    return rc;
}

int snarkjs_proof_write(const char *path, const groth16_proof *proof, cuzk_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    fprintf(f, "{\n");
    put_g1(f, "pi_a", &proof->a, ",");
    put_g2(f, "pi_b", &proof->b, ",");
    put_g1(f, "pi_c", &proof->c, ",");
    fprintf(f, " \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}");
    fclose(f);
    return write_text(path, text, len, err);
}

int snarkjs_public_write(const char *path, const fr_t *inputs, size_t n, cuzk_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    fprintf(f, "[");
    for (size_t i = 0; i < n; i++) {
        uint64_t l[FR_LIMBS];
        char dec[100];
        fr_to_canonical(l, &inputs[i]);
        limbs_to_decimal(dec, l, FR_LIMBS);
        fprintf(f, "%s\n \"%s\"", i ? "," : "", dec);
    }
    fprintf(f, "\n]");
    fclose(f);
    return write_text(path, text, len, err);
}

/* ---- readers ---- */

typedef struct json_ctx {
    const char *path;
    cuzk_err *err;
} json_ctx;

static int parse_file(yajl_val *root, const char *path, cuzk_err *err)
{
    uint8_t *text;
    size_t len;
    int rc = cuzk_read_file(path, &text, &len, 64u << 20, err);
    if (rc) return rc;
    char msg[256];
    *root = yajl_tree_parse((const char *)text, msg, sizeof(msg));
    free(text);
    if (!*root) {
        for (char *p = msg; *p; p++)
            if (*p == '\n') *p = ' ';
        return cuzk_errf(err, CUZK_EINVAL, "%s: invalid JSON: %s", path, msg);
    }
    return CUZK_OK;
}

static int bad(const json_ctx *c, const char *what, const char *why)
{
    return cuzk_errf(c->err, CUZK_EINVAL, "%s: %s %s", c->path, what, why);
}

static const char *get_string(yajl_val v)
{
    return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
}

static yajl_val array_item(yajl_val v, size_t i, size_t want_len)
{
    if (!YAJL_IS_ARRAY(v) || v->u.array.len != want_len) return NULL;
    return v->u.array.values[i];
}

static int read_fp(const json_ctx *c, fp_t *x, yajl_val v, const char *what)
{
    const char *s = get_string(v);
    uint64_t l[FP_LIMBS];
    if (!s || !decimal_to_limbs(l, s, FP_LIMBS)) return bad(c, what, "is not a decimal string");
    if (!fp_from_canonical(x, l))
        return cuzk_errf(c->err, CUZK_ENONCANONICAL, "%s: %s is not below p", c->path, what);
    return CUZK_OK;
}

static int expect_string(const json_ctx *c, yajl_val v, const char *want, const char *what)
{
    const char *s = get_string(v);
    if (!s || strcmp(s, want) != 0) return bad(c, what, "has an unexpected value");
    return CUZK_OK;
}

static int check_point(const json_ctx *c, bool on_curve, bool in_subgroup, const char *what)
{
    if (!on_curve)
        return cuzk_errf(c->err, CUZK_ENOTONCURVE, "%s: %s is not on the curve", c->path, what);
    if (!in_subgroup)
        return cuzk_errf(c->err, CUZK_ENOTINSUBGROUP, "%s: %s is not in the subgroup", c->path,
                         what);
    return CUZK_OK;
}

static int read_g1(const json_ctx *c, g1_affine_t *p, yajl_val v, const char *what)
{
    int rc = read_fp(c, &p->x, array_item(v, 0, 3), what);
    if (!rc) rc = read_fp(c, &p->y, array_item(v, 1, 3), what);
    if (!rc) rc = expect_string(c, array_item(v, 2, 3), "1", what);
    if (!rc) rc = check_point(c, g1_affine_on_curve(p), g1_affine_in_subgroup(p), what);
    return rc;
}

static int read_g2(const json_ctx *c, g2_affine_t *p, yajl_val v, const char *what)
{
    yajl_val x = array_item(v, 0, 3), y = array_item(v, 1, 3), z = array_item(v, 2, 3);
    int rc = read_fp(c, &p->x.c0, array_item(x, 0, 2), what);
    if (!rc) rc = read_fp(c, &p->x.c1, array_item(x, 1, 2), what);
    if (!rc) rc = read_fp(c, &p->y.c0, array_item(y, 0, 2), what);
    if (!rc) rc = read_fp(c, &p->y.c1, array_item(y, 1, 2), what);
    if (!rc) rc = expect_string(c, array_item(z, 0, 2), "1", what);
    if (!rc) rc = expect_string(c, array_item(z, 1, 2), "0", what);
    if (!rc) rc = check_point(c, g2_affine_on_curve(p), g2_affine_in_subgroup(p), what);
    return rc;
}

static yajl_val field(yajl_val root, const char *name)
{
    const char *path[] = {name, NULL};
    return yajl_tree_get(root, path, yajl_t_any);
}

int snarkjs_proof_read(groth16_proof *proof, const char *path, cuzk_err *err)
{
    yajl_val root;
    int rc = parse_file(&root, path, err);
    if (rc) return rc;
    json_ctx c = {path, err};
    rc = read_g1(&c, &proof->a, field(root, "pi_a"), "pi_a");
    if (!rc) rc = read_g2(&c, &proof->b, field(root, "pi_b"), "pi_b");
    if (!rc) rc = read_g1(&c, &proof->c, field(root, "pi_c"), "pi_c");
    if (!rc) rc = expect_string(&c, field(root, "protocol"), "groth16", "protocol");
    if (!rc) rc = expect_string(&c, field(root, "curve"), "bls12381", "curve");
    if (!rc &&
        (g1_affine_is_inf(&proof->a) || g2_affine_is_inf(&proof->b) || g1_affine_is_inf(&proof->c)))
        rc = cuzk_errf(err, CUZK_EIDENTITY, "%s: a proof point is the identity", path);
    yajl_tree_free(root);
    return rc;
}

int snarkjs_public_read(fr_t **inputs, size_t *n, const char *path, cuzk_err *err)
{
    yajl_val root;
    int rc = parse_file(&root, path, err);
    if (rc) return rc;
    json_ctx c = {path, err};
    *inputs = NULL;
    *n = 0;
    if (!YAJL_IS_ARRAY(root)) rc = bad(&c, "top level", "is not an array");
    size_t len = rc ? 0 : root->u.array.len;
    if (!rc && !(*inputs = malloc(sizeof(fr_t) * (len ? len : 1))))
        rc = cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; !rc && i < len; i++) {
        const char *s = get_string(root->u.array.values[i]);
        uint64_t l[FR_LIMBS];
        if (!s || !decimal_to_limbs(l, s, FR_LIMBS))
            rc = cuzk_errf(err, CUZK_EINVAL, "%s: input %zu is not a decimal string", path, i);
        else if (!fr_from_canonical(&(*inputs)[i], l))
            rc = cuzk_errf(err, CUZK_ENONCANONICAL, "%s: input %zu is not below r", path, i);
    }
    yajl_tree_free(root);
    if (rc) {
        free(*inputs);
        *inputs = NULL;
        return rc;
    }
    *n = len;
    return CUZK_OK;
}

int snarkjs_vk_read(groth16_vk *vk, const char *path, cuzk_err *err)
{
    yajl_val root;
    int rc = parse_file(&root, path, err);
    if (rc) return rc;
    json_ctx c = {path, err};
    memset(vk, 0, sizeof(*vk));
    rc = expect_string(&c, field(root, "protocol"), "groth16", "protocol");
    if (!rc) rc = expect_string(&c, field(root, "curve"), "bls12381", "curve");
    if (!rc) rc = read_g1(&c, &vk->alpha_g1, field(root, "vk_alpha_1"), "vk_alpha_1");
    if (!rc) rc = read_g2(&c, &vk->beta_g2, field(root, "vk_beta_2"), "vk_beta_2");
    if (!rc) rc = read_g2(&c, &vk->gamma_g2, field(root, "vk_gamma_2"), "vk_gamma_2");
    if (!rc) rc = read_g2(&c, &vk->delta_g2, field(root, "vk_delta_2"), "vk_delta_2");
    yajl_val ic = field(root, "IC"), np = field(root, "nPublic");
    if (!rc && (!YAJL_IS_ARRAY(ic) || ic->u.array.len == 0)) rc = bad(&c, "IC", "is not a list");
    if (!rc && (!YAJL_IS_INTEGER(np) || YAJL_GET_INTEGER(np) + 1 != (long long)ic->u.array.len))
        rc = bad(&c, "nPublic", "does not match the length of IC");
    if (!rc) {
        vk->n_ic = ic->u.array.len;
        if (!(vk->ic = calloc(vk->n_ic, sizeof(g1_affine_t))))
            rc = cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0; !rc && i < vk->n_ic; i++) {
        char what[32];
        snprintf(what, sizeof(what), "IC[%zu]", i);
        rc = read_g1(&c, &vk->ic[i], ic->u.array.values[i], what);
    }
    yajl_tree_free(root);
    if (rc) groth16_vk_free(vk);
    return rc;
}
