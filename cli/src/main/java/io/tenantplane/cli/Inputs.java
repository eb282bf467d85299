package io.tenantplane.cli;

import com.google.gson.JsonElement;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Reads Kubernetes objects from files, directories, stdin ({@code -}) and the examples embedded in the jar.
 * Every failure is a {@link CliException} that names the file.
 */
final class Inputs {

    /** The jar folder that holds a copy of {@code examples/yaml} (see {@code cli/pom.xml}). */
    static final String EMBEDDED_EXAMPLES = "examples/";

    private Inputs() {
    }

    /**
     * Reads every object from the given files and directories, in argument order; directories are walked
     * recursively for {@code .yaml}, {@code .yml} and {@code .json} files in path order, skipping hidden entries.
     */
    static List<Doc> read(List<String> paths, InputStream stdin, String option) {
        List<Doc> docs = new ArrayList<>();
        for (String arg : paths) {
            if (arg.equals("-")) {
                docs.addAll(parse("<stdin>", readAll(stdin, "<stdin>")));
                continue;
            }
            for (Path file : expand(arg, option)) {
                docs.addAll(readFile(file));
            }
        }
        return docs;
    }

    static List<Path> expand(String arg, String option) {
        Path p = Path.of(arg);
        if (!Files.exists(p)) {
            throw new CliException(arg, option, "no such file or directory",
                    "pass an existing file, or a directory of .yaml/.yml/.json files");
        }
        if (!Files.isDirectory(p)) {
            return List.of(p);
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(p)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(f -> isManifest(f.getFileName().toString()))
                    .filter(f -> !hidden(p.relativize(f)))
                    .sorted(Comparator.comparing(Path::toString))
                    .toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new CliException(arg, option, "cannot list the directory (" + e.getMessage() + ")",
                    "check its permissions", e);
        }
        if (files.isEmpty()) {
            throw new CliException(arg, option, "the directory holds no .yaml, .yml or .json files",
                    "point at the directory that holds the manifests");
        }
        return files;
    }

    private static boolean isManifest(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json");
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** Parses one file's text (named {@code label} in messages): YAML with one or more documents, or JSON. */
    static List<Doc> parse(String label, String text) {
        List<Doc> docs = new ArrayList<>();
        for (LoadedObject lo : Manifests.parse(text, Path.of(label))) {
            docs.add(checked(lo));
        }
        return docs;
    }

    private static List<Doc> readFile(Path file) {
        List<Doc> docs = new ArrayList<>();
        for (LoadedObject lo : Manifests.read(file)) {
            docs.add(checked(lo));
        }
        return docs;
    }

    /** Manifests checks apiVersion and kind; every command here also needs a name. */
    private static Doc checked(LoadedObject lo) {
        Doc d = Doc.of(lo);
        JsonElement meta = lo.object().get("metadata");
        if (meta == null || !meta.isJsonObject()) {
            throw new CliException(d.where(), "metadata", "is missing", "add metadata.name");
        }
        JsonElement name = meta.getAsJsonObject().get("name");
        if (name == null || name.isJsonNull()) {
            throw new CliException(d.where(), "metadata.name", "is missing",
                    "every object needs a name; generateName is not supported offline");
        }
        if (!name.isJsonPrimitive() || !name.getAsJsonPrimitive().isString() || name.getAsString().isBlank()) {
            throw new CliException(d.where(), "metadata.name", "must be a non-empty string", "write e.g. 'name: nginx'");
        }
        JsonElement ns = meta.getAsJsonObject().get("namespace");
        if (ns != null && !ns.isJsonNull() && !(ns.isJsonPrimitive() && ns.getAsJsonPrimitive().isString())) {
            throw new CliException(d.where(), "metadata.namespace", "must be a string", "quote the value");
        }
        return d;
    }

    private static String readAll(InputStream in, String label) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException(label, null, "cannot read (" + e.getMessage() + ")", "check the input", e);
        }
    }

    /**
     * The examples embedded in the jar (or in the classes folder when run from the build), as file name → text,
     * in path order. Labels read {@code embedded:examples/workloads/pod.yaml}.
     */
    static List<Doc> embeddedExamples() {
        TreeMap<String, String> files = new TreeMap<>();
        Path location;
        try {
            location = Path.of(Inputs.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            throw new CliException("embedded:" + EMBEDDED_EXAMPLES, null, "cannot locate the embedded examples",
                    "run 'tenantplane demo --dir examples/yaml' from a checkout", e);
        }
        try {
            if (Files.isDirectory(location)) {
                Path dir = location.resolve(EMBEDDED_EXAMPLES);
                if (Files.isDirectory(dir)) {
                    try (Stream<Path> walk = Files.walk(dir)) {
                        for (Path f : walk.filter(Files::isRegularFile).toList()) {
                            String rel = dir.relativize(f).toString().replace('\\', '/');
                            files.put(EMBEDDED_EXAMPLES + rel, Files.readString(f, StandardCharsets.UTF_8));
                        }
                    }
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    for (JarEntry e : java.util.Collections.list(jar.entries())) {
                        if (!e.isDirectory() && e.getName().startsWith(EMBEDDED_EXAMPLES)) {
                            try (InputStream in = jar.getInputStream(e)) {
                                files.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new CliException("embedded:" + EMBEDDED_EXAMPLES, null, "cannot read the embedded examples ("
                    + e.getMessage() + ")", "rebuild the CLI with ./mvnw -pl cli -am package", e);
        }
        List<Doc> docs = new ArrayList<>();
        files.forEach((name, text) -> {
            if (isManifest(name) && !hidden(Path.of(name))) {
                docs.addAll(parse("embedded:" + name, text));
            }
        });
        if (docs.isEmpty()) {
            throw new CliException("embedded:" + EMBEDDED_EXAMPLES, null, "no examples are embedded in this build",
                    "rebuild the CLI with ./mvnw -pl cli -am package, or pass --dir examples/yaml");
        }
        return docs;
    }
}
