package io.tenantplane.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The kubelet API paths kube-apiserver calls, as the endpoint reads them. */
class KubeletCallTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(nullValues = "-", value = {
        "/containerLogs/default/web/app, containerLogs, default, web, app",
        "/containerLogs/default/web, containerLogs, -, -, -",
        "/exec/default/web/app, exec, default, web, app",
        "/exec/default/web/3f2a-uid/app, exec, default, web, app",
        "/attach/ci/runner/build, attach, ci, runner, build",
        "/portForward/default/web, portForward, default, web, -",
        "/portForward/default/web/3f2a-uid, portForward, default, web, -",
        "/stats/summary, stats, -, -, -",
        "/healthz, healthz, -, -, -",
        "/pods, other, -, -, -",
        "/runningpods/, other, -, -, -",
        "/containerLogs/default/web%2Fx/app, containerLogs, default, web/x, app",
    })
    void readsVerbPodAndContainer(String path, String verb, String namespace, String pod, String container) {
        KubeletServer.Call c = KubeletServer.Call.parse("GET", path);

        assertEquals(verb, c.verb());
        assertEquals(namespace, c.namespace());
        assertEquals(pod, c.pod());
        assertEquals(container, c.container());
    }
}
