package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Test fixtures under {@code src/test/resources/fixtures}, read from YAML into gson trees. */
final class Fixtures {
    private Fixtures() {
    }

    static JsonElement yaml(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + name);
            }
            Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            return Json.GSON.toJsonTree(tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonObject object(String name) {
        return yaml(name).getAsJsonObject();
    }

    /** The cases of a fixture file that holds a YAML list of objects. */
    static List<JsonObject> cases(String name) {
        List<JsonObject> cases = new ArrayList<>();
        JsonArray list = yaml(name).getAsJsonArray();
        list.forEach(c -> cases.add(c.getAsJsonObject()));
        return cases;
    }

    static ResourceType builtin(String qualified) {
        String plural = qualified.contains(".") ? qualified.substring(0, qualified.indexOf('.')) : qualified;
        String group = qualified.contains(".") ? qualified.substring(qualified.indexOf('.') + 1) : "";
        return Registry.builtins(true).stream().filter(t -> t.is(group, plural)).findFirst().orElseThrow();
    }
}
