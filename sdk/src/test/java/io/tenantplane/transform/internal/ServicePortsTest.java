package io.tenantplane.transform.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServicePortsTest {

    private static JsonObject port(String json) {
        return JsonParser.parseString(json).getAsJsonObject();
    }

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource(delimiter = ';', textBlock = """
            # named ports: the name alone decides, as kube-apiserver keeps a node port by name
            {"name":"http","port":80};                      {"name":"http","port":8080};                    true
            {"name":"http","port":80};                      {"name":"web","port":80};                       false
            {"name":"http","port":80,"protocol":"TCP"};     {"name":"http","port":80,"protocol":"UDP"};     true
            # a named port is never an unnamed one, whatever its number
            {"name":"http","port":80};                      {"port":80};                                    false
            {"port":80};                                    {"name":"http","port":80};                      false
            # an absent name is the empty name, as in Go
            {"name":"","port":80};                          {"port":80};                                    true
            # unnamed ports: the same port number and protocol
            {"port":80};                                    {"port":80};                                    true
            {"port":80};                                    {"port":8080};                                  false
            {"port":53,"protocol":"UDP"};                   {"port":53,"protocol":"TCP"};                   false
            {"port":53,"protocol":"UDP"};                   {"port":53,"protocol":"UDP"};                   true
            # TCP is the protocol when none is given (the API's default)
            {"port":80,"protocol":"TCP"};                   {"port":80};                                    true
            """)
    void aPortIsTheSameByNameElseByNumberAndProtocol(String a, String b, boolean same) {
        assertEquals(same, ServicePorts.same(port(a), port(b)));
        assertEquals(same, ServicePorts.same(port(b), port(a)), "the rule is symmetric");
    }
}
