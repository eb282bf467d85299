package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.plan.Action;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reliability.md's corpus section follows the corpus files: a row per file, the live outcome of each custom
 * resource as the file expects it (refused by the host API, or one status write), and the counts in the text. It
 * drifted once, when the testkit began to run CEL rules and eight cases changed outcome.
 */
class ReliabilityDocTest {

    @Test
    void everyCorpusFileHasARowAndEachCustomResourceRowSaysTheLiveOutcomeTheFileExpects() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "reliability.md"));
        List<String> wrong = new ArrayList<>();
        for (Corpus.Case c : Corpus.cases()) {
            String name = c.file().replaceFirst("\\.yaml$", "");
            Matcher m = Pattern.compile("^\\| `" + Pattern.quote(name) + "` \\| (.*?) \\| (.*?) \\| (.*?) \\|$",
                    Pattern.MULTILINE).matcher(doc);
            if (!m.find()) {
                wrong.add(name + ": no row");
                continue;
            }
            if (c.input() == Corpus.Input.CUSTOM_RESOURCES) {
                String expected = outcome(c.live());
                if (!m.group(3).equals(expected)) {
                    wrong.add(name + ": the row says \"" + m.group(3) + "\", the file expects \"" + expected + "\"");
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void theCountsInTheTextAreTheCorpusCounts() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "reliability.md")).replaceAll("\\s+", " ");
        List<Corpus.Case> cases = Corpus.cases();
        List<Corpus.Case> custom = cases.stream().filter(c -> c.input() == Corpus.Input.CUSTOM_RESOURCES).toList();
        List<Corpus.Case> tenant = cases.stream().filter(c -> c.input() != Corpus.Input.CUSTOM_RESOURCES).toList();
        long refusedByHost = custom.stream().filter(c -> c.live() != null && c.live().refusedKind() != null).count();
        long refusedByTenant = tenant.stream().filter(Corpus.Case::tenantRefuses).count();
        long creates = tenant.stream().flatMap(c -> c.decisions().stream())
                .filter(d -> d.action() == Action.CREATE).count();
        for (String claim : List.of(
                "Results: " + cases.size() + "/" + cases.size() + " offline, " + cases.size() + "/" + cases.size()
                        + " live.",
                "(" + refusedByHost + " of " + custom.size() + " are refused by the CRD schema",
                "(" + refusedByTenant + " of " + tenant.size() + " are refused there",
                "Tenant objects: " + creates + " Creates",
                "offline and live | " + cases.size() + " files |")) {
            assertTrue(doc.contains(claim), "docs/reliability.md should say: " + claim);
        }
    }

    private static String outcome(Corpus.Live live) {
        if (live != null && live.refusedKind() != null) {
            return "host API refuses the " + live.refusedKind() + " (`" + live.refusedField() + "`); "
                    + (live.refusedKind().equals("TenantCluster") ? "0 writes" : "1 write: Ready=False `InvalidSpec`");
        }
        return "1 write (status): Ready=False `InvalidSpec`";
    }
}
