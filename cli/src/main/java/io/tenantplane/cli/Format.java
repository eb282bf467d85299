package io.tenantplane.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import io.tenantplane.json.Json;
import java.util.Arrays;
import java.util.Locale;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/** The output formats of {@code -o/--output}, and the writers for them. */
enum Format {
    YAML, JSON, TABLE;

    /** Parses {@code -o} against what the command supports; a wrong value is bad input (exit 2). */
    static Format parse(String value, Format... supported) {
        return parse(value, Arrays.stream(supported).map(Format::flag).toList(), supported);
    }

    /**
     * Like {@link #parse(String, Format...)}, for commands with extra modes of their own (such as {@code wide}),
     * which they handle before calling this; {@code allowed} is every value the command takes, for the message.
     */
    static Format parse(String value, java.util.List<String> allowed, Format... supported) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (Format f : supported) {
            if (f.flag().equals(v)) {
                return f;
            }
        }
        throw new CliException(null, "-o/--output", "unsupported format '" + value + "'",
                "use one of " + String.join(", ", allowed));
    }

    String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Pretty JSON, two-space indent, no HTML escaping, ending with a newline. */
    static String json(JsonElement tree) {
        return Holder.PRETTY.toJson(tree) + "\n";
    }

    /** Block-style YAML, as kubectl prints it. */
    static String yaml(JsonElement tree) {
        return Holder.yaml().dump(Json.toYamlValue(tree));
    }

    /** Built on first use only: most runs print one format, and startup time matters. */
    private static final class Holder {
        static final Gson PRETTY = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

        static Yaml yaml() {
            DumperOptions o = new DumperOptions();
            o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
            o.setIndent(2);
            o.setIndicatorIndent(0);
            o.setSplitLines(false);
            o.setWidth(Integer.MAX_VALUE);
            return new Yaml(o);
        }
    }
}
