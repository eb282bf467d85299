package io.tenantplane.model;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Represent;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Reads Kubernetes manifests (YAML, multi-document, or JSON) into {@link LoadedObject}s and writes objects back as
 * YAML or JSON.
 *
 * <p>Reading: a directory contributes its {@code .yaml}, {@code .yml} and {@code .json} files (not its
 * subdirectories, as with {@code kubectl apply -f DIR}), in name order; a file named explicitly is read whatever its
 * extension ({@code .json} as JSON, everything else as YAML). Empty documents are skipped, a {@code List} (such as
 * {@code kubectl get -o yaml} prints) is expanded into its items. YAML is read safely (no arbitrary types, duplicate
 * keys rejected, alias expansion bounded) and timestamps stay strings, as in Kubernetes. Anything unusable throws
 * {@link ManifestException} naming the file, the line when known and the fix.
 *
 * <p>Writing: block-style YAML with {@code apiVersion}, {@code kind}, {@code metadata} first and {@code status} last,
 * every other key in the object's own (deterministic) order; multi-line strings as literal blocks.
 */
public final class Manifests {

    private static final Pattern GSON_LINE = Pattern.compile("line (\\d+)");
    private static final List<String> FIRST_KEYS = List.of("apiVersion", "kind", "metadata");
    private static final Gson PRETTY = new GsonBuilder().disableHtmlEscaping().setPrettyPrinting().create();

    private Manifests() {
    }

    /** Reads files and directories, in the order given. */
    public static List<LoadedObject> read(Path... paths) {
        return read(Arrays.asList(paths));
    }

    /**
     * Reads files and directories, in the order given.
     *
     * @throws ManifestException when a path does not exist or a file cannot be parsed
     */
    public static List<LoadedObject> read(List<Path> paths) {
        List<LoadedObject> out = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    for (Path f : s.filter(Manifests::isManifestFile).sorted().toList()) {
                        out.addAll(readFile(f));
                    }
                } catch (IOException e) {
                    throw new ManifestException(p, 0, "cannot list the directory (" + e.getMessage() + ")");
                }
            } else {
                out.addAll(readFile(p));
            }
        }
        return List.copyOf(out);
    }

    private static boolean isManifestFile(Path f) {
        String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
        return Files.isRegularFile(f) && !n.startsWith(".")
                && (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json"));
    }

    private static List<LoadedObject> readFile(Path f) {
        String text;
        try {
            text = Files.readString(f, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ManifestException(f, 0, "no such file or directory; check the path");
        } catch (IOException e) {
            throw new ManifestException(f, 0, "cannot read the file (" + e.getMessage() + ")");
        }
        return parse(text, f);
    }

    /**
     * Parses manifest text; {@code file} names it in messages and decides the format ({@code .json}: JSON,
     * anything else: YAML, which also accepts JSON).
     *
     * @throws ManifestException when the text is not valid or holds something other than Kubernetes objects
     */
    public static List<LoadedObject> parse(String text, Path file) {
        String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
        refuseOversizedDocuments(t, file);
        if (file.getFileName() != null && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json")) {
            return parseJson(t, file);
        }
        return parseYaml(t, file);
    }

    private static List<LoadedObject> parseJson(String text, Path file) {
        if (text.isBlank()) {
            return List.of();
        }
        JsonElement e;
        try {
            e = JsonParser.parseString(text);
        } catch (JsonParseException ex) {
            String msg = ex.getCause() != null && ex.getCause().getMessage() != null
                    ? ex.getCause().getMessage() : String.valueOf(ex.getMessage());
            Matcher m = GSON_LINE.matcher(msg);
            int line = m.find() ? Integer.parseInt(m.group(1)) : 0;
            throw new ManifestException(file, line, "invalid JSON: " + msg.replaceAll("\\s*See https://\\S+", "")
                    + "; fix the syntax there (a missing comma, quote or brace)");
        }
        List<LoadedObject> out = new ArrayList<>();
        addDocument(e, file, 0, 0, out);
        return out;
    }

    private static List<LoadedObject> parseYaml(String text, Path file) {
        LoaderOptions options = loaderOptions();
        KubeConstructor constructor = new KubeConstructor(options);
        Yaml yaml = new Yaml(constructor, new Representer(new DumperOptions()), new DumperOptions(), options);
        List<LoadedObject> out = new ArrayList<>();
        int index = 0;
        try {
            for (Node node : yaml.composeAll(new StringReader(text))) {
                Object value = node == null ? null : constructor.construct(node);
                int line = node == null ? 0 : node.getStartMark().getLine() + 1;
                if (value != null) {
                    addDocument(Json.fromYamlValue(value), file, index, line, out);
                }
                index++;
            }
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            int line = mark == null ? 0 : mark.getLine() + 1;
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
            if (e.getContext() != null && problem.startsWith("found duplicate key")) {
                problem = e.getContext() + ", " + problem;
            }
            throw new ManifestException(file, line, "invalid YAML" + (mark == null ? "" : " at column "
                    + (mark.getColumn() + 1)) + ": " + firstLine(problem) + "; " + yamlFix(problem));
        } catch (YAMLException e) {
            throw new ManifestException(file, 0, "invalid YAML: " + firstLine(e.getMessage())
                    + "; check the document's syntax");
        }
        return out;
    }

    private static String firstLine(String s) {
        String t = s == null ? "" : s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    private static String yamlFix(String problem) {
        String p = problem == null ? "" : problem.toLowerCase(Locale.ROOT);
        if (p.contains("duplicate key")) {
            return "remove or rename one of the duplicate keys";
        }
        if (p.contains("\\t") || p.contains("tab")) {
            return "indent with spaces, not tabs";
        }
        if (p.contains("mapping values are not allowed")) {
            return "check the indentation, or quote a value that contains ': '";
        }
        if (p.contains("could not find expected ':'")) {
            return "a key needs ': ' after it; check the line above too";
        }
        if (p.contains("number of aliases") || p.contains("exceeds the limit")) {
            return "the document is too large or uses too many aliases; split it";
        }
        return "check the indentation and quoting around that line";
    }

    /**
     * The most a Kubernetes API server takes in one request ({@code --max-request-body-bytes}, 3 MiB): kubectl sends
     * each document (each item of a List) in a request of its own, so no single one may be larger.
     */
    public static final int MAX_REQUEST_BYTES = 3 * 1024 * 1024;
    /** The most etcd stores as one object by default ({@code --max-request-bytes}, 1.5 MiB). */
    public static final int MAX_OBJECT_BYTES = 1536 * 1024;

    /**
     * Refuses, before any parsing, a document larger than an API server takes in one request, in one linear pass
     * over the text (YAML documents split at lines starting with {@code ---}); parsing and planning such input would
     * cost far more than the answer is worth.
     */
    private static void refuseOversizedDocuments(String text, Path file) {
        if (text.length() <= MAX_REQUEST_BYTES / 4) {
            return;  // at most 4 bytes per char in UTF-8: small enough whatever it holds
        }
        boolean json = file.getFileName() != null
                && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        int start = 0;
        int document = 1;
        int line = 1;
        int startLine = 1;
        for (int i = 0; i <= text.length(); i++) {
            boolean end = i == text.length();
            boolean separator = !json && !end && (i == 0 || text.charAt(i - 1) == '\n') && text.startsWith("---", i)
                    && (i + 3 == text.length() || Character.isWhitespace(text.charAt(i + 3)));
            if (end || separator) {
                long bytes = utf8Length(text, start, i);
                if (bytes > MAX_REQUEST_BYTES) {
                    throw new ManifestException(file, startLine, (json ? "the file" : "document " + document) + " is "
                            + bytes + " bytes; a Kubernetes API server takes at most " + MAX_REQUEST_BYTES
                            + " bytes (3 MiB) in one request and stores at most " + MAX_OBJECT_BYTES + " bytes (1.5 MiB) "
                            + "per object: split it or keep large data out of the manifest");
                }
                if (separator) {
                    start = i;
                    startLine = line;
                    document++;
                }
            }
            if (!end && text.charAt(i) == '\n') {
                line++;
            }
        }
    }

    private static long utf8Length(String s, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    private static void refuseOversizedObject(JsonObject o, Path file, int line, String what) {
        long bytes = Json.gson().toJson(o).getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_OBJECT_BYTES) {
            throw new ManifestException(file, line, what + " (" + Json.string(o, "kind") + " "
                    + Json.string(o, "metadata", "name") + ") is " + bytes + " bytes as JSON; a Kubernetes API server "
                    + "stores at most " + MAX_OBJECT_BYTES + " bytes (1.5 MiB) per object: keep large data out of it");
        }
    }

    private static void addDocument(JsonElement e, Path file, int index, int line, List<LoadedObject> out) {
        if (e.isJsonNull()) {
            return;
        }
        if (!e.isJsonObject()) {
            throw new ManifestException(file, line, "document " + (index + 1) + " is "
                    + Structure.describe(e) + ", not a Kubernetes object; each document must be a mapping with "
                    + "apiVersion, kind and metadata");
        }
        JsonObject o = e.getAsJsonObject();
        String kind = Json.string(o, "kind");
        JsonElement items = o.get("items");
        if (kind != null && kind.endsWith("List") && items != null && items.isJsonArray()) {
            JsonArray a = items.getAsJsonArray();
            for (int i = 0; i < a.size(); i++) {
                if (!a.get(i).isJsonObject()) {
                    throw new ManifestException(file, line, "item " + i + " of the " + kind + " in document "
                            + (index + 1) + " is " + Structure.describe(a.get(i)) + ", not a Kubernetes object");
                }
                requireIdentity(a.get(i).getAsJsonObject(), file, line, "item " + i + " of document " + (index + 1));
                refuseOversizedObject(a.get(i).getAsJsonObject(), file, line, "item " + i + " of document "
                        + (index + 1));
                out.add(new LoadedObject(file, index, a.get(i).getAsJsonObject()));
            }
            return;
        }
        requireIdentity(o, file, line, "document " + (index + 1));
        refuseOversizedObject(o, file, line, "document " + (index + 1));
        out.add(new LoadedObject(file, index, o));
    }

    private static void requireIdentity(JsonObject o, Path file, int line, String what) {
        for (String key : List.of("apiVersion", "kind")) {
            JsonElement v = o.get(key);
            if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString() || v.getAsString().isBlank()) {
                throw new ManifestException(file, line, what + " has no " + key + "; every object needs apiVersion "
                        + "and kind, e.g. apiVersion: " + TenantCluster.API_VERSION + " and kind: " + TenantCluster.KIND);
            }
        }
    }

    private static LoaderOptions loaderOptions() {
        LoaderOptions o = new LoaderOptions();
        o.setAllowDuplicateKeys(false);
        o.setMaxAliasesForCollections(50);
        o.setNestingDepthLimit(100);
        o.setCodePointLimit(64 * 1024 * 1024);
        return o;
    }

    /** SafeConstructor that keeps timestamps and binary scalars as the strings Kubernetes sees. */
    private static final class KubeConstructor extends SafeConstructor {
        KubeConstructor(LoaderOptions options) {
            super(options);
            this.yamlConstructors.put(Tag.TIMESTAMP, new ConstructYamlStr());
            this.yamlConstructors.put(Tag.BINARY, new ConstructYamlStr());
        }

        Object construct(Node node) {
            return constructDocument(node);
        }
    }

    /** One object as block YAML. */
    public static String toYaml(JsonElement object) {
        return yaml().dump(Json.toYamlValue(ordered(object)));
    }

    /** Several objects as one multi-document YAML stream, separated by {@code ---}. */
    public static String toYaml(List<? extends JsonElement> objects) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < objects.size(); i++) {
            if (i > 0) {
                b.append("---\n");
            }
            b.append(toYaml(objects.get(i)));
        }
        return b.toString();
    }

    /** One object as indented JSON. */
    public static String toJson(JsonElement object) {
        return PRETTY.toJson(ordered(object)) + "\n";
    }

    /** Several objects as one {@code v1 List}, the way {@code kubectl get -o json} prints several. */
    public static String toJson(List<? extends JsonElement> objects) {
        JsonObject list = new JsonObject();
        list.addProperty("apiVersion", "v1");
        list.addProperty("kind", "List");
        JsonArray items = new JsonArray();
        objects.forEach(o -> items.add(ordered(o)));
        list.add("items", items);
        return PRETTY.toJson(list) + "\n";
    }

    /** apiVersion, kind, metadata first and status last at the top level; everything else as it is. */
    private static JsonElement ordered(JsonElement e) {
        if (e == null || !e.isJsonObject()) {
            return e;
        }
        JsonObject in = e.getAsJsonObject();
        Map<String, JsonElement> m = new LinkedHashMap<>();
        FIRST_KEYS.forEach(k -> {
            if (in.has(k)) {
                m.put(k, in.get(k));
            }
        });
        in.entrySet().forEach(en -> {
            if (!FIRST_KEYS.contains(en.getKey()) && !en.getKey().equals("status")) {
                m.put(en.getKey(), en.getValue());
            }
        });
        if (in.has("status")) {
            m.put("status", in.get("status"));
        }
        JsonObject out = new JsonObject();
        m.forEach(out::add);
        return out;
    }

    private static Yaml yaml() {
        DumperOptions o = new DumperOptions();
        o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        o.setIndent(2);
        o.setSplitLines(false);
        return new Yaml(new LiteralRepresenter(o), o);
    }

    /** Writes multi-line strings (scripts, certificates) as literal blocks instead of quoted one-liners. */
    private static final class LiteralRepresenter extends Representer {
        LiteralRepresenter(DumperOptions options) {
            super(options);
            Represent plain = this.representers.get(String.class);
            this.representers.put(String.class, data -> {
                String s = data.toString();
                if (s.indexOf('\n') >= 0) {
                    return representScalar(Tag.STR, s, DumperOptions.ScalarStyle.LITERAL);
                }
                return plain.representData(data);
            });
        }
    }
}
