/*
 * test_compare_more.c -- `cowsim compare` on a multi-seed run directory of
 * five seeds and two mechanisms (analysis/cs_compare.c), in process: the
 * text header lists the first three seeds and the last ("3, 4, 5, ...,
 * 7"), the reference is --ref's mechanism, and the CSV has one row per
 * metric and mechanism with the header of analysis/README.md, the
 * reference's difference columns empty; the number of blocks, 8 in every
 * run, is the mean of "blocks" with n = 5 and a zero difference.  Then
 * `compare --harm --json` of tests/data/harm/spam-fifo.json's pair: the
 * harm row test_harm.sh computes by hand (issue 29: coverage of analysis/).
 */
#include "cs_test.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *text_of(const char *path)
{
    size_t n = 0;
    return (char *)cs_test_slurp(path, &n);
}

int main(void)
{
    setenv("COWSIM_H5_SANDBOX", "0", 1); /* files read in this process: no helper forked per file */
    char dir[256], scn[320], runs[320], out[320];
    snprintf(dir, sizeof dir, "%s/cs_compare_more_%d", cs_test_tmpdir(), (int)getpid());
    mkdir(dir, 0755);
    snprintf(scn, sizeof scn, "%s/s.json", dir);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    const char *text = "{\"name\": \"cmp-more\", \"seed\": 3, \"blocks\": 8, \"mechanism\": [\"fifo\", \"eip1559\"],\n"
                       " \"agents\": [{\"kind\": \"heartbeat\", \"count\": 2}]}\n";
    CS_CHECK(cs_test_spit(scn, (const unsigned char *)text, strlen(text)) == 0);
    char *run[] = {"cowsim", "run", scn, "-o", runs, "--seeds", "5", "--quiet", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_quiet(8, run), 0);

    /* Text, --ref eip1559. */
    char *cmp[] = {"cowsim", "compare", runs, "--ref", "eip1559", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_out(out, 5, cmp), 0);
    char *t = text_of(out), want[512];
    snprintf(want, sizeof want, "cowsim compare: %s -- scenario cmp-more, 5 seeds (3, 4, 5, ..., 7), 2 mechanisms\n",
             runs);
    CS_CHECK(t && strncmp(t, want, strlen(want)) == 0);
    CS_CHECK(t && strstr(t, "diff = mechanism - eip1559 on the same seed"));
    free(t);

    /* CSV. */
    char *csv[] = {"cowsim", "compare", runs, "--csv", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_out(out, 4, csv), 0);
    t = text_of(out);
    static const char head[] = "metric,mechanism,n,mean,t_lo,t_hi,bca_lo,bca_hi,diff_n,diff_mean,diff_t_lo,"
                               "diff_t_hi,diff_bca_lo,diff_bca_hi\n";
    CS_CHECK(t && strncmp(t, head, sizeof head - 1) == 0);
    /* blocks: 8 in every run; fifo is the reference (the scenario's first). */
    CS_CHECK(t && strstr(t, "\nblocks,fifo,5,8,8,8,,,,,,,,\n"));
    CS_CHECK(t && strstr(t, "\nblocks,eip1559,5,8,8,8,,,5,0,0,0,,\n"));
    if (t && !strstr(t, "\nblocks,eip1559,")) fprintf(stderr, "%.600s\n", t);
    free(t);

    /* compare --harm --json of the hand-computed pair. */
    const char *src = getenv("CS_SRC");
    char hs[512], hdir[320], with[400];
    snprintf(hs, sizeof hs, "%s/tests/data/harm/spam-fifo.json", src ? src : ".");
    snprintf(hdir, sizeof hdir, "%s/harm", dir);
    char *hrun[] = {"cowsim", "run", hs, "-o", hdir, "--harm", "--quiet", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_quiet(7, hrun), 0);
    snprintf(with, sizeof with, "%s/fifo-capped.h5", hdir);
    char *hc[] = {"cowsim", "compare", with, "--harm", "--json", NULL};
    CS_CHECK_EQ_U64(cs_test_cli_out(out, 5, hc), 0);
    t = text_of(out);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    CS_CHECK(j != NULL);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "harm");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(h, "rows");
    const cJSON *r0 = cJSON_GetArrayItem(rows, 0);
    const cJSON *dm = cJSON_GetObjectItemCaseSensitive(r0, "delay_mean_with");
    const cJSON *hon = cJSON_GetObjectItemCaseSensitive(r0, "honest");
    CS_CHECK(cJSON_GetArraySize(rows) == 1 && cJSON_IsNumber(dm) && fabs(dm->valuedouble - 1.8) < 1e-12 &&
             cJSON_IsNumber(hon) && hon->valuedouble == 2);
    if (!(cJSON_IsNumber(dm) && cJSON_IsNumber(hon))) fprintf(stderr, "%.800s\n", t ? t : "");
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(h, "summary");
    CS_CHECK(cJSON_IsArray(sum));
    cJSON_Delete(j);
    free(t);
    return cs_test_finish("compare_more", dir);
}
