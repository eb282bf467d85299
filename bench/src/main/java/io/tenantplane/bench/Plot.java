package io.tenantplane.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A log-log line plot as a PNG, drawn with Java2D so the build needs no plotting library (headless-safe).
 */
public final class Plot {

    /** One point. */
    public record Point(double x, double y) {
    }

    /** One line of the plot. */
    public record Series(String name, Color color, boolean dashed, List<Point> points) {
        public Series {
            points = List.copyOf(points);
        }
    }

    private static final int W = 900;
    private static final int H = 560;
    private static final int LEFT = 90;
    private static final int RIGHT = 30;
    private static final int TOP = 50;
    private static final int BOTTOM = 70;

    private Plot() {
    }

    /** Writes the plot of {@code series} (all x and y must be positive) to {@code png}. */
    public static void write(Path png, String title, String xLabel, String yLabel, List<Series> series) throws IOException {
        System.setProperty("java.awt.headless", "true");
        double minX = Double.MAX_VALUE, maxX = 0, minY = Double.MAX_VALUE, maxY = 0;
        for (Series s : series) {
            for (Point p : s.points()) {
                if (p.x() <= 0 || p.y() <= 0) {
                    throw new IllegalArgumentException("log plot needs positive values, got " + p + " in " + s.name());
                }
                minX = Math.min(minX, p.x());
                maxX = Math.max(maxX, p.x());
                minY = Math.min(minY, p.y());
                maxY = Math.max(maxY, p.y());
            }
        }
        if (maxX == 0) {
            throw new IllegalArgumentException("nothing to plot");
        }
        int x0 = (int) Math.floor(Math.log10(minX));
        int x1 = Math.max(x0 + 1, (int) Math.ceil(Math.log10(maxX)));
        int y0 = (int) Math.floor(Math.log10(minY));
        int y1 = Math.max(y0 + 1, (int) Math.ceil(Math.log10(maxY)));

        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
        g.setFont(font);
        FontMetrics fm = g.getFontMetrics();
        int pw = W - LEFT - RIGHT;
        int ph = H - TOP - BOTTOM;

        g.setColor(new Color(230, 230, 230));
        g.setStroke(new BasicStroke(1f));
        for (int d = x0; d <= x1; d++) {
            int px = LEFT + (int) Math.round((d - x0) / (double) (x1 - x0) * pw);
            g.drawLine(px, TOP, px, TOP + ph);
        }
        for (int d = y0; d <= y1; d++) {
            int py = TOP + ph - (int) Math.round((d - y0) / (double) (y1 - y0) * ph);
            g.drawLine(LEFT, py, LEFT + pw, py);
        }
        g.setColor(Color.DARK_GRAY);
        g.drawRect(LEFT, TOP, pw, ph);
        for (int d = x0; d <= x1; d++) {
            int px = LEFT + (int) Math.round((d - x0) / (double) (x1 - x0) * pw);
            String label = decade(d);
            g.drawString(label, px - fm.stringWidth(label) / 2, TOP + ph + 20);
        }
        for (int d = y0; d <= y1; d++) {
            int py = TOP + ph - (int) Math.round((d - y0) / (double) (y1 - y0) * ph);
            String label = decade(d);
            g.drawString(label, LEFT - 10 - fm.stringWidth(label), py + fm.getAscent() / 2);
        }
        g.drawString(xLabel, LEFT + pw / 2 - fm.stringWidth(xLabel) / 2, H - 25);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(yLabel, -(TOP + ph / 2) - fm.stringWidth(yLabel) / 2, 25);
        rotated.dispose();
        g.setFont(font.deriveFont(Font.BOLD, 16f));
        g.drawString(title, LEFT, 30);
        g.setFont(font);

        int legendY = TOP + 20;
        for (Series s : series) {
            g.setColor(s.color());
            g.setStroke(s.dashed()
                    ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {8f, 6f}, 0f)
                    : new BasicStroke(2.5f));
            int prevX = -1, prevY = -1;
            for (Point p : s.points()) {
                int px = LEFT + (int) Math.round((Math.log10(p.x()) - x0) / (x1 - x0) * pw);
                int py = TOP + ph - (int) Math.round((Math.log10(p.y()) - y0) / (y1 - y0) * ph);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, px, py);
                }
                if (!s.dashed()) {
                    g.fillOval(px - 4, py - 4, 8, 8);
                }
                prevX = px;
                prevY = py;
            }
            g.drawLine(LEFT + 15, legendY, LEFT + 45, legendY);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), LEFT + 52, legendY + fm.getAscent() / 2 - 1);
            legendY += 20;
        }
        g.dispose();
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(img, "png", png.toFile());
    }

    private static String decade(int d) {
        double v = Math.pow(10, d);
        if (d >= 0) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, "%." + (-d) + "f", v);
    }
}
