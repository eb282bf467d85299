package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ManifestsTest {

    private static final Path DIR = Path.of("src", "test", "resources", "model", "manifests");

    @Test
    void readsADirectoryInNameOrderExpandingListsAndSkippingEmptyDocuments() {
        List<LoadedObject> objects = Manifests.read(DIR);
        assertEquals(List.of("one", "two", "first", "second"), objects.stream().map(LoadedObject::name).toList());
        assertEquals(List.of(0, 0, 0, 2), objects.stream().map(LoadedObject::documentIndex).toList());
        assertEquals(DIR.resolve("b-multi.yaml"), objects.get(2).file());
    }

    @Test
    void keepsTimestampsAndBinaryScalarsAsTheStringsKubernetesSees() {
        List<LoadedObject> objects = Manifests.read(DIR.resolve("b-multi.yaml"));
        assertEquals("2025-01-31T12:00:00Z", Json.string(objects.get(0).object(), "metadata", "creationTimestamp"));
        assertEquals("true", Json.string(objects.get(0).object(), "data", "enabled"));
        assertEquals("aGVsbG8=", Json.string(objects.get(1).object(), "data", "token"));
    }

    @Test
    void describesWhereAnObjectCameFrom() {
        List<LoadedObject> objects = Manifests.read(DIR.resolve("b-multi.yaml"));
        assertEquals(DIR.resolve("b-multi.yaml") + " (ConfigMap default/first)", objects.get(0).describe());
        assertEquals(DIR.resolve("b-multi.yaml") + " (document 3, Secret second)", objects.get(1).describe());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bad indentation        | 'apiVersion: v1\\nkind: Pod\\nmetadata:\\n  name: x\\n   labels: y: z\\n'       | 5 | check the indentation
            duplicate key          | 'apiVersion: v1\\nkind: Pod\\nkind: Service\\n'                            | 3 | remove or rename one of the duplicate keys
            tab indentation        | 'apiVersion: v1\\nkind: Pod\\nmetadata:\\n\\tname: x\\n'                     | 4 | indent with spaces, not tabs
            a list, not an object  | '- a\\n- b\\n'                                                            | 1 | not a Kubernetes object
            no kind                | 'apiVersion: v1\\nmetadata: {name: x}\\n---\\napiVersion: v1\\nmetadata: {}\\n' | 1 | document 1 has no kind; every object needs apiVersion and kind
            unclosed flow mapping  | 'apiVersion: v1\\nkind: Pod\\nmetadata: {name: x\\n'                      | 4 | check the indentation and quoting
            """)
    void malformedYamlNamesTheFileTheLineAndTheFix(String name, String text, int line, String fix) {
        Path file = Path.of("bad.yaml");
        ManifestException e = assertThrows(ManifestException.class,
                () -> Manifests.parse(text.replace("\\n", "\n").replace("\\t", "\t"), file));
        assertEquals(OptionalInt.of(line), e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("bad.yaml: line " + line + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(fix), e.getMessage());
        assertEquals(-1, e.getMessage().indexOf('\n'), "one line: " + e.getMessage());
    }

    @Test
    void malformedJsonNamesTheLine() {
        ManifestException e = assertThrows(ManifestException.class,
                () -> Manifests.parse("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\"\n  \"metadata\": {}\n}\n",
                        Path.of("bad.json")));
        assertEquals(OptionalInt.of(4), e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("bad.json: line 4: invalid JSON"), e.getMessage());
    }

    @Test
    void aMissingFileSaysSo() {
        ManifestException e = assertThrows(ManifestException.class, () -> Manifests.read(Path.of("no", "such.yaml")));
        assertEquals(Path.of("no", "such.yaml") + ": no such file or directory; check the path", e.getMessage());
    }

    @Test
    void aliasBombsAreRefused() {
        StringBuilder b = new StringBuilder("apiVersion: v1\nkind: ConfigMap\na: &a [x, x, x, x, x, x, x, x, x]\n");
        for (int i = 0; i < 60; i++) {
            b.append("k").append(i).append(": [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n");
        }
        assertThrows(ManifestException.class, () -> Manifests.parse(b.toString(), Path.of("bomb.yaml")));
    }

    @Test
    void writesBlockYamlWithIdentityFirstStatusLastAndScriptsAsLiteralBlocks() {
        JsonObject o = Json.gson().fromJson("""
                {"status":{"phase":"Ready"},"spec":{"script":"set -eu\\necho hi\\n","on":"yes","n":3},
                 "kind":"Pod","metadata":{"name":"p"},"apiVersion":"v1"}""", JsonObject.class);
        assertEquals("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p
                spec:
                  script: |
                    set -eu
                    echo hi
                  'on': 'yes'
                  n: 3
                status:
                  phase: Ready
                """, Manifests.toYaml(o));
    }

    @Test
    void writtenYamlReadsBackToTheSameObjects() {
        List<LoadedObject> objects = Manifests.read(DIR);
        List<JsonObject> json = objects.stream().map(LoadedObject::object).toList();
        String yaml = Manifests.toYaml(json);
        List<JsonObject> back = Manifests.parse(yaml, Path.of("out.yaml")).stream().map(LoadedObject::object).toList();
        assertEquals(json, back);
        String list = Manifests.toJson(json);
        List<JsonObject> fromJson = Manifests.parse(list, Path.of("out.json")).stream().map(LoadedObject::object).toList();
        assertEquals(json, fromJson);
    }

    @Test
    void aDocumentLargerThanAnApiServerTakesIsRefusedBeforeParsingNamingTheFileTheSizeAndTheLimit() {
        String big = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  k: " + "x".repeat(30 << 20)
                + "\n";
        ManifestException e = assertThrows(ManifestException.class, () -> Manifests.parse(big, Path.of("big.yaml")));
        assertTrue(e.getMessage().startsWith("big.yaml: line 1: document 1 is " + big.length() + " bytes"),
                e.getMessage());
        assertTrue(e.getMessage().contains("at most 3145728 bytes (3 MiB) in one request"), e.getMessage());
    }

    @Test
    void manySmallDocumentsInOneLargeFileAreRead() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            text.append("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c").append(i)
                    .append("}\ndata: {k: ").append("y".repeat(100_000)).append("}\n");
        }
        assertEquals(40, Manifests.parse(text.toString(), Path.of("many.yaml")).size());
    }

    @Test
    void anObjectLargerThanEtcdStoresIsRefusedNamingIt() {
        String doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: large}\ndata:\n  k: " + "z".repeat(2 << 20)
                + "\n";
        ManifestException e = assertThrows(ManifestException.class, () -> Manifests.parse(doc, Path.of("l.yaml")));
        assertTrue(e.getMessage().contains("document 1 (ConfigMap large) is 2097"), e.getMessage());
        assertTrue(e.getMessage().contains("at most 1572864 bytes (1.5 MiB) per object"), e.getMessage());
    }
}
