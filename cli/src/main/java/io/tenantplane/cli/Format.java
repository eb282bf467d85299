package io.tenantplane.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/** The output formats of {@code -o/--output}, and the writers for them. */
enum Format {
    YAML, JSON, TABLE;

    /** Parses {@code -o} against what the command supports; a wrong value is bad input (exit 2). */
    static Format parse(String value, Format... supported) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (Format f : supported) {
            if (f.flag().equals(v)) {
                return f;
            }
        }
        String allowed = Arrays.stream(supported).map(Format::flag).collect(Collectors.joining(", "));
        throw new CliException(null, "-o/--output", "unsupported format '" + value + "'", "use one of " + allowed);
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

    /** Several objects as one multi-document YAML stream ({@code ---} between documents). */
    static String yamlDocuments(List<? extends JsonElement> docs) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < docs.size(); i++) {
            if (i > 0) {
                b.append("---\n");
            }
            b.append(yaml(docs.get(i)));
        }
        return b.toString();
    }

    /** Several objects as one JSON value: a Kubernetes {@code v1 List}, which {@code kubectl apply -f} accepts. */
    static String jsonList(List<? extends JsonElement> docs) {
        JsonObject list = new JsonObject();
        list.addProperty("apiVersion", "v1");
        list.addProperty("kind", "List");
        JsonArray items = new JsonArray();
        docs.forEach(items::add);
        list.add("items", items);
        return json(list);
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
