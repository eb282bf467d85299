package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The performance document and its plot. */
class ReportTest {

    private static final Machine MACHINE = new Machine(2, 23.4, "Some CPU", "OpenJDK 25", "Linux 6 amd64", 0.5);
    private static final ZonedDateTime WHEN = ZonedDateTime.of(2025, 1, 2, 3, 4, 0, 0, ZoneOffset.UTC);

    private static List<Report.Section> sections() {
        return List.of(new Report.Section("Offline plan, naming and explain (JMH)", List.of(
                new Figure("Plan 1,000 objects, empty host", "12.0 ms", "deep copy 4.00 ms", 3.0, "≤ 2.00×", false,
                        "bench/run.sh jmh 'PlanBenchmark|DeepCopyBenchmark' -p objects=1000"),
                Figure.plain("Naming", "1,000,000 /s", "bench/run.sh jmh NamingBenchmark")),
                List.of("a note")));
    }

    @Test
    void tableHasOneRowPerFigureWithRatioTargetAndCommand() {
        String md = Report.generated(MACHINE, WHEN, sections(), "plot.png");
        assertTrue(md.contains("| Plan 1,000 objects, empty host | 12.0 ms | deep copy 4.00 ms | 3.00× | ≤ 2.00× | **no** | "
                + "`bench/run.sh jmh 'PlanBenchmark\\|DeepCopyBenchmark' -p objects=1000` |"), md);
        assertTrue(md.contains("| Naming | 1,000,000 /s | — | — | — | — |"), md);
        assertTrue(md.contains("2 cores (Some CPU), 23.4 GiB memory"), md);
        assertTrue(md.contains("![Plan time against object count, log-log](plot.png)"), md);
        assertTrue(md.contains("a note"), md);
    }

    @Test
    void rewritingKeepsTextOutsideTheMarkers(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("performance.md");
        Report.write(doc, "# Performance\n\nintro\n", Report.generated(MACHINE, WHEN, sections(), null));
        Files.writeString(doc, Files.readString(doc) + "\n## Findings\n\nwritten by hand\n");
        Report.write(doc, "ignored", Report.generated(MACHINE, WHEN.plusDays(1), sections(), null));
        String text = Files.readString(doc);
        assertTrue(text.startsWith("# Performance\n\nintro\n"), text);
        assertTrue(text.endsWith("## Findings\n\nwritten by hand\n"), text);
        assertTrue(text.contains("2025-01-03"), text);
        assertEquals(1, text.split(Report.BEGIN, -1).length - 1, text);
    }

    @Test
    void plotIsAPngWithTheSeriesDrawn(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("plot.png");
        Plot.write(png, "title", "objects", "ms", List.of(
                new Plot.Series("plan", Color.RED, false, List.of(new Plot.Point(1000, 10), new Plot.Point(10000, 100))),
                new Plot.Series("target", Color.GREEN, true, List.of(new Plot.Point(1000, 20), new Plot.Point(10000, 200)))));
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(900, img.getWidth());
        boolean red = false;
        for (int x = 0; x < img.getWidth() && !red; x++) {
            for (int y = 0; y < img.getHeight() && !red; y++) {
                red = img.getRGB(x, y) == Color.RED.getRGB();
            }
        }
        assertTrue(red, "the plan line is drawn");
    }
}
