package io.tenantplane.cli;

import java.util.ArrayList;
import java.util.List;

/** A kubectl-style plain-text table: upper-case headers, columns padded, three spaces apart, no borders. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    Table(String... headers) {
        this.columns = headers.length;
        rows.add(headers);
    }

    Table row(String... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("expected " + columns + " cells, got " + cells.length);
        }
        String[] copy = new String[columns];
        for (int i = 0; i < columns; i++) {
            copy[i] = cells[i] == null || cells[i].isEmpty() ? "-" : cells[i];
        }
        rows.add(copy);
        return this;
    }

    String render() {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(r[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - r[i].length() + 3));
                }
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        return b.toString();
    }
}
