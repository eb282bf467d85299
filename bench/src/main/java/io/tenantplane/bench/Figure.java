package io.tenantplane.bench;

import java.util.Locale;

/**
 * One row of the performance table.
 *
 * @param name      what was measured, e.g. "Plan 10,000 objects, converged host"
 * @param value     the measured figure with its unit
 * @param baseline  what it is compared with and that figure, or "—" when there is none
 * @param ratio     value / baseline; null when there is no baseline
 * @param target    the goal, e.g. "≤ 2×"; "—" when there is none
 * @param met       whether the target is met; null when there is no target
 * @param reproduce the command that measures this row again
 */
public record Figure(String name, String value, String baseline, Double ratio, String target, Boolean met,
                     String reproduce) {

    /** A figure with no baseline and no target: reported for information. */
    public static Figure plain(String name, String value, String reproduce) {
        return new Figure(name, value, "—", null, "—", null, reproduce);
    }

    /** {@code 1234.5} as "1,234.5" (one decimal below 100, none above). */
    public static String number(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (Math.abs(v) >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** A ratio as "1.23×". */
    public static String times(double v) {
        return String.format(Locale.ROOT, "%.2f×", v);
    }

    /** The met column: "yes", "**no**" or "—". */
    public String metText() {
        return met == null ? "—" : met ? "yes" : "**no**";
    }
}
