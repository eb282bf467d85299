package io.tenantplane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CEL libraries rules may use: what the API server's base environment has and the testkit too gives the same
 * answers; a rule using a library the testkit lacks is refused when its CRD is written, never skipped.
 */
class CelLibrariesTest {

    /**
     * The causes of writing a CRD with {@code rule} on {@code spec} and then validating {@code spec} with it. These
     * rules test what the libraries answer; what they cost is {@link CelCostTest}'s concern, so the estimated-cost
     * causes are left out here (some rules below, such as {@code join} on a list literal or {@code ==} of two CIDRs,
     * the API server's estimator prices beyond the budget, as the testkit does).
     */
    private static List<ApiError.Cause> run(String rule, String spec) {
        JsonObject schema = JsonParser.parseString("""
                {"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{}],
                  "properties":{"name":{"type":"string","maxLength":253},
                                "ports":{"type":"array","maxItems":64,"items":{"type":"integer"}}}}}}""")
                .getAsJsonObject();
        schema.getAsJsonObject("properties").getAsJsonObject("spec").getAsJsonArray("x-kubernetes-validations")
                .get(0).getAsJsonObject().addProperty("rule", rule);
        List<ApiError.Cause> causes = new ArrayList<>();
        CelRules.compileAll(schema, "schema", causes);
        causes.removeIf(c -> c.message().contains("exceeds budget by factor of")
                || c.message().contains("contributed to estimated rule cost total"));
        if (!causes.isEmpty()) {
            return causes;
        }
        CelRules.validate(JsonParser.parseString("{\"spec\":" + spec + "}").getAsJsonObject(), null, schema, causes);
        return causes;
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "self.name.split('-').size() == 3 | {\"name\":\"a-b-c\"}",
            "self.name.upperAscii() == 'ABC' && self.name.charAt(1) == 'b' | {\"name\":\"abc\"}",
            "self.name.replace('a', 'x') == 'xbc' && self.name.indexOf('c') == 2 | {\"name\":\"abc\"}",
            "['a', 'b'].join('-') == 'a-b' | {\"name\":\"x\"}",
            "self.ports.isSorted() && self.ports.sum() == 523 && self.ports.min() == 80 | {\"ports\":[80,443]}",
            "self.ports.lastIndexOf(80) == 1 && self.ports.indexOf(7) == -1 | {\"ports\":[80,80]}",
            "self.name.find('[0-9]+') == '42' && self.name.findAll('[a-z]', 1) == ['a'] | {\"name\":\"a42b\"}",
            "sets.equivalent([1, 2], [2, 1]) && sets.intersects(self.ports, [443]) | {\"ports\":[80,443]}",
            "self.ports.all(i, p, p > i) | {\"ports\":[80,443]}",
            "optional.of(self.name).hasValue() | {\"name\":\"x\"}",
            "quantity('1Gi').isGreaterThan(quantity('1G')) && quantity('1G').isLessThan(quantity('1Gi')) "
                    + "| {\"name\":\"x\"}",
            "quantity('500m').compareTo(quantity('0.5')) == 0 && quantity(self.name).asInteger() == 1000 "
                    + "| {\"name\":\"1k\"}",
            "!quantity('1.5').isInteger() && quantity('1e3').isInteger() && sign(quantity('-2')) == -1 "
                    + "| {\"name\":\"x\"}",
            "isQuantity('10Mi') && !isQuantity('10 apples') && !isQuantity('1.2.3') | {\"name\":\"x\"}",
            "quantity('1Ki').add(24).asInteger() == 1048 && quantity('2').sub(quantity('500m'))"
                    + ".asApproximateFloat() == 1.5 | {\"name\":\"x\"}",
            "ip(self.name).family() == 4 && ip('::1').family() == 6 && ip('::1').isLoopback() "
                    + "| {\"name\":\"10.0.0.1\"}",
            "ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() "
                    + "&& !ip('fd80::1').isLinkLocalUnicast() | {\"name\":\"x\"}",
            "ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() "
                    + "&& !ip('224.0.1.1').isLinkLocalMulticast() | {\"name\":\"x\"}",
            "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() "
                    + "&& ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() | {\"name\":\"x\"}",
            "isIP('2001:db8::1') && !isIP('01.2.3.4') && !isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0') "
                    + "&& !isIP('1.2.3') | {\"name\":\"x\"}",
            "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8:0:0:0:0:0:1') "
                    + "&& string(ip('2001:0db8:0:0:1:0:0:1')) == '2001:db8::1:0:0:1' | {\"name\":\"x\"}",
            "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.1')) "
                    + "| {\"name\":\"x\"}",
            "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.1.0/24')"
                    + ".containsCIDR(cidr('192.168.2.0/24')) | {\"name\":\"x\"}",
            "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('192.168.0.1/24').masked() == "
                    + "cidr('192.168.0.0/24') && cidr('::1/128').prefixLength() == 128 | {\"name\":\"x\"}",
            "isCIDR(self.name) && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0') "
                    + "&& string(cidr('10.0.0.1/8')) == '10.0.0.1/8' | {\"name\":\"10.0.0.0/8\"}"})
    void rulesUsingTheBaseEnvironmentsLibrariesHold(String rule, String spec) {
        assertEquals(List.of(), run(rule, spec), rule);
    }

    /** The examples of the URL library's documentation ({@code urls.go}), each a rule that holds. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')",
            "!isURL('https://a:b:c/') && !isURL('../relative-path') && !isURL('')",
            "url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'",
            "url('HTTPS://example.com/').getScheme() == 'https'",
            "url('https://example.com:80/').getHost() == 'example.com:80' "
                    + "&& url('https://example.com/').getHost() == 'example.com'",
            "url('https://[::1]:80/').getHost() == '[::1]:80' && url('https://[::1]/').getHost() == '[::1]' "
                    + "&& url('/path').getHost() == ''",
            "url('https://example.com:80/').getHostname() == 'example.com' "
                    + "&& url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
            "url('https://[::1]:80/').getHostname() == '::1' && url('/path').getHostname() == ''",
            "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == '' "
                    + "&& url('/path').getPort() == ''",
            "url('https://example.com/path').getEscapedPath() == '/path' "
                    + "&& url('https://example.com').getEscapedPath() == ''",
            "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
            "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
            "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
            "url('https://example.com/path?key with spaces=value with spaces').getQuery() "
                    + "== {'key with spaces': ['value with spaces']}",
            "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}",
            "url('https://example.com/p?a=1#frag').getQuery() == {'a': ['1']}",
            "url('https://example.com/p?a=%zz&b=2').getQuery() == {'b': ['2']}",
            "url('mailto:someone@example.com').getScheme() == 'mailto' "
                    + "&& url('mailto:someone@example.com').getHost() == ''"})
    void theUrlLibraryAnswersAsItsDocumentationSays(String rule) {
        assertEquals(List.of(), run(rule, "{\"name\":\"x\"}"), rule);
    }

    /** The format library's examples and refusals ({@code format.go}), each a rule that holds. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "!format.dns1123Label().validate('my-label-name').hasValue()",
            "format.dns1123Label().validate('My_Label').hasValue()",
            "format.dns1123Label().validate('a.b').value() == ['must not contain dots']",
            "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()",
            "!format.dns1035Label().validate('my-label-name').hasValue() "
                    + "&& format.dns1035Label().validate('1abc').hasValue()",
            "!format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue() "
                    + "&& format.qualifiedName().validate('/x').value() == ['prefix part must be non-empty']",
            "!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue() "
                    + "&& format.dns1123Label().validate('my-label-prefix-').hasValue()",
            "!format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()",
            "!format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()",
            "!format.labelValue().validate('').hasValue() && format.labelValue().validate('-x').hasValue()",
            "!format.uri().validate('http://example.com').hasValue() "
                    + "&& format.uri().validate('../x').value()[0].endsWith('invalid URI for request')",
            "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue() "
                    + "&& format.uuid().validate('x').value() == ['does not match the UUID format']",
            "!format.byte().validate('aGVsbG8=').hasValue() && format.byte().validate('aGVsbG8').hasValue()",
            "!format.date().validate('2021-01-01').hasValue() && format.date().validate('2021-02-30').hasValue()",
            "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue() "
                    + "&& format.datetime().validate('2021-01-01T25:00:00Z').value() == ['invalid datetime']",
            "format.named('dns1123Label').hasValue() && !format.named('nope').hasValue() "
                    + "&& !format.named('dns1123Label').value().validate('ok').hasValue()",
            "format.dns1123Label().validate(self.name).value().join('\\n').startsWith("
                    + "'a lowercase RFC 1123 label must consist of')"})
    void theFormatLibraryValidatesAsUpstreamsValidators(String rule) {
        assertEquals(List.of(), run(rule, "{\"name\":\"Not_A_Label\"}"), rule);
    }

    /** What {@code url.ParseRequestURI} refuses is the rule's evaluation error, with Go's message. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "https://a:b:c/ | invalid port \":c\" after host",
            "../relative-path | invalid URI for request",
            ":no-scheme | missing protocol scheme",
            "https://exa mple.com/ | invalid character \" \" in host name",
            "https://example.com/%zz | invalid URL escape \"%zz\""})
    void aStringThatIsNoUrlIsAnEvaluationErrorWithGosMessage(String value, String message) {
        List<ApiError.Cause> causes = run("url(self.name).getScheme() != ''", "{\"name\":\"" + value + "\"}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains("URL parse error during conversion from string: parse \""
                + value + "\": " + message), causes::toString);
    }

    @Test
    void aRuleThatFailsIsReportedWithItsField() {
        List<ApiError.Cause> causes = run("self.ports.isSorted()", "{\"ports\":[443,80]}");
        assertEquals(1, causes.size(), causes::toString);
        assertEquals("spec", causes.get(0).field());
    }

    /** {@code resource.ParseQuantity}'s error, as the rule's evaluation error. */
    @Test
    void aStringThatIsNoQuantityIsAnEvaluationErrorNamingTheFormat() {
        List<ApiError.Cause> causes = run("sign(quantity(self.name)) >= 0", "{\"name\":\"ten\"}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains("quantities must match the regular expression"),
                causes::toString);
        assertEquals(1, run("quantity('1.5').asInteger() == 1", "{\"name\":\"x\"}").size(),
                "a fraction is no integer");
    }

    /** The ip and cidr libraries' own refusals: zones and IPv4-mapped IPv6 addresses, with their messages. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "ip(self.name).family() == 6 | fe80::1%eth0 | with zone value is not allowed",
            "ip(self.name).family() == 6 | ::ffff:1.2.3.4 | IPv4-mapped IPv6 address",
            "ip(self.name).family() == 4 | 1.2.3.04 | parse error during conversion from string",
            "cidr(self.name).prefixLength() > 0 | 10.0.0.0/40 | network address parse error during conversion"})
    void anAddressTheLibrariesRefuseIsAnEvaluationError(String rule, String value, String message) {
        List<ApiError.Cause> causes = run(rule, "{\"name\":\"" + value + "\"}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains(message), causes::toString);
    }

    @Test
    void anEmptyListHasNoMinimumAndTheRuleErrors() {
        List<ApiError.Cause> causes = run("self.ports.min() > 0", "{\"ports\":[]}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains("min called on empty list"), causes::toString);
    }

    /** RE2, as the server's Go regexp: a backreference is not a regular expression there. */
    @Test
    void aRegexRe2RefusesIsAnErrorNotAMatch() {
        List<ApiError.Cause> causes = run("self.name.find('(a)\\\\1') == ''", "{\"name\":\"aa\"}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains("error parsing regexp"), causes::toString);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "quantity(self.name).mul(2).isGreaterThan(quantity('1'))",
            "quantity(self.name).div(2).isGreaterThan(quantity('1'))"})
    void aRuleUsingALibraryTheTestkitLacksIsRefusedWhenItsCrdIsWritten(String rule) {
        List<ApiError.Cause> causes = run(rule, "{\"name\":\"1\"}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains("compilation failed"), causes::toString);
    }

    /**
     * The literal checks of the base environment from 1.29 (cel-go {@code cel.ASTValidators}): a literal the rule
     * could never use is a compile error, so the CRD is refused when written, not when an object is.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "self.name.matches('(a)\\\\1') | invalid matches argument",
            "self.name.matches('(?=a)') | invalid matches argument",
            "duration('1x') > duration('1s') | invalid duration argument",
            "timestamp('yesterday') < timestamp('2026-01-01T00:00:00Z') | invalid timestamp argument",
            "[1, 'a'].size() == 2 | expected type 'int' but found 'string'"})
    void aLiteralTheRuleCouldNeverUseRefusesTheCrd(String rule, String message) {
        List<ApiError.Cause> causes = run(rule, "{\"name\":\"a\"}");
        assertEquals(1, causes.size(), causes::toString);
        assertTrue(causes.get(0).message().contains("compilation failed"), causes::toString);
        assertTrue(causes.get(0).message().contains(message), causes::toString);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "self.name.matches('^[a-z]+$')",
            "duration('90s') > duration('1m')",
            "timestamp('2026-01-01T00:00:00Z') > timestamp('2025-01-01T00:00:00Z')",
            "self.name.matches(self.name)"})
    void literalsTheServerAcceptsCompile(String rule) {
        assertEquals(List.of(), run(rule, "{\"name\":\"a\"}"), rule);
    }
}
