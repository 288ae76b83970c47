/*
 * cuzk-oracle - answers arithmetic requests with cuzk's BLS12-381 code so
 * that tests/oracle/oracle.mjs can compare the answers with @noble/curves,
 * an implementation we did not write.
 *
 * Protocol: one request per line on stdin, "<op> <arg>...", arguments as
 * canonical big-endian hex; one answer line per request on stdout, in the
 * same order. Blank lines and lines starting with '#' are skipped. The
 * operations and their answers are listed in the tables of fields.c,
 * groups.c, msm.c and pairing.c ("cuzk-oracle --help" prints them). A malformed
 * request (unknown op, wrong argument count, bad hex, a field value not
 * below its modulus) is reported on stderr with its line number and the
 * program exits with status 2; answers already printed stay valid.
 *
 * What it deliberately does not do: decide whether an answer is right.
 * That is the oracle script's job, so this program stays a thin shell over
 * the library's public API.
 */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

static const oracle_op *const TABLES[] = {fp_oracle_ops,     fr_oracle_ops,    fp2_oracle_ops,
                                          g1_oracle_ops,     g2_oracle_ops,    fp12_oracle_ops,
                                          g1_oracle_msm_ops, g2_oracle_msm_ops};

static const oracle_op *find_op(const char *name)
{
    for (size_t t = 0; t < sizeof(TABLES) / sizeof(TABLES[0]); t++)
        for (const oracle_op *op = TABLES[t]; op->name; op++)
            if (strcmp(op->name, name) == 0) return op;
    return NULL;
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: cuzk-oracle < requests\nrequests, one per line:\n");
    for (size_t t = 0; t < sizeof(TABLES) / sizeof(TABLES[0]); t++)
        for (const oracle_op *op = TABLES[t]; op->name; op++)
            fprintf(out, "  %-24s %s\n", op->name, op->usage);
}

/* Splits line into at most ORACLE_MAX_ARGS + 1 whitespace-separated tokens. */
static int tokenize(char *line, char **tok, int cap)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == cap) return -1;
        tok[n++] = t;
    }
    return n;
}

static int run_request(char *line, cuzk_err *err)
{
    char *tok[ORACLE_MAX_ARGS + 1];
    int n = tokenize(line, tok, ORACLE_MAX_ARGS + 1);
    if (n < 0) return cuzk_errf(err, CUZK_EINVAL, "more than %d arguments", ORACLE_MAX_ARGS);
    if (n == 0 || tok[0][0] == '#') return CUZK_OK;
    const oracle_op *op = find_op(tok[0]);
    if (!op) return cuzk_errf(err, CUZK_EINVAL, "unknown operation '%.64s'", tok[0]);
    int nargs = n - 1;
    if (nargs < op->min_args || nargs > op->max_args)
        return cuzk_errf(err, CUZK_EINVAL, "%s takes %s (got %d arguments)", op->name, op->usage,
                         nargs);
    oracle_req q = {op, tok + 1, nargs, stdout, err};
    if (op->fn(&q)) return cuzk_err_prefix(err, "%s: ", op->name);
    fputc('\n', stdout);
    return CUZK_OK;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        bool help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        print_usage(help ? stdout : stderr);
        return help ? 0 : 2;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int status = 0;
    while (getline(&line, &cap, stdin) >= 0) {
        cuzk_err err = {0};
        lineno++;
        if (run_request(line, &err)) {
            fflush(stdout);
            fprintf(stderr, "cuzk-oracle: line %ld: %s\n", lineno, err.msg);
            status = 2;
            break;
        }
    }
    free(line);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "cuzk-oracle: writing the answers failed\n");
        status = 2;
    }
    return status;
}
