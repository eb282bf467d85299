package io.tenantplane.model;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Test fixtures: YAML case files from the test class path, and the examples of the repository. */
final class Fixtures {

    /** examples/yaml of the repository; Maven runs tests in the module directory. */
    static final Path EXAMPLES = Path.of("..", "examples", "yaml");
    /** k8s/crds of the repository. */
    static final Path CRDS = Path.of("..", "k8s", "crds");

    private Fixtures() {
    }

    /** The text of a class-path resource. */
    static String resource(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every document of a multi-document YAML resource, as JSON objects. */
    static List<JsonObject> documents(String name) {
        List<JsonObject> out = new ArrayList<>();
        for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(resource(name))) {
            if (doc != null) {
                JsonElement e = Json.fromYamlValue(doc);
                out.add(e.getAsJsonObject());
            }
        }
        return out;
    }
}
