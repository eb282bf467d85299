package io.tenantplane.bench;

import io.tenantplane.naming.HostNames;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Host names per second, over a mix where one name in eight is too long and gets hashed. The reference is one
 * SHA-256 of each plain form, the only costly step the naming rule defines.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class NamingBenchmark {

    /** Names per invocation; the scores are per name. */
    public static final int BATCH = 1024;

    private String[][] triples;

    /** Builds the inputs once per trial. */
    @Setup
    public void setUp() {
        triples = Fixtures.nameTriples(BATCH);
    }

    /** {@link HostNames#hostName} of every triple. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void hostName(Blackhole bh) {
        for (String[] t : triples) {
            bh.consume(HostNames.hostName(t[0], t[1], t[2]));
        }
    }

    /** One SHA-256 in hex of every plain form. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void sha256OfPlainForm(Blackhole bh) throws NoSuchAlgorithmException {
        for (String[] t : triples) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] d = md.digest((t[0] + "-x-" + t[1] + "-x-" + t[2]).getBytes(StandardCharsets.UTF_8));
            bh.consume(HexFormat.of().formatHex(d));
        }
    }
}
