package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * Service ClusterIP allocation from one IPv4 service CIDR, as kube-apiserver's bitmap allocator does it
 * ({@code pkg/registry/core/service/ipallocator/bitmap.go}, messages from {@code interfaces.go} and
 * {@code pkg/registry/core/service/storage/alloc.go}): the network and broadcast addresses are never handed out,
 * a requested IP must be inside the range and free, dynamic allocation draws at random from the upper band first
 * (the lower band, {@code min(max(16, size/16), 256)} addresses, is kept for static choices), and an IP is free
 * again once its Service is gone. The range's first address is held for the {@code kubernetes} Service, which a
 * real API server creates at start.
 */
final class ServiceIps {
    private final String cidr;
    private final long base;
    private final long size;
    private final long lowBand;
    private final Random random;
    /** Allocated address → the Service holding it ({@code namespace/name}). */
    private final Map<Long, String> owners = new HashMap<>();

    ServiceIps(String cidr, Random random) {
        String[] parts = cidr.split("/");
        if (parts.length != 2) {
            throw new IllegalArgumentException("serviceCidr must look like 10.96.0.0/16: " + cidr);
        }
        long address = parse(parts[0]);
        int bits;
        try {
            bits = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("serviceCidr must look like 10.96.0.0/16: " + cidr);
        }
        if (address < 0 || bits < 12 || bits > 28) {
            throw new IllegalArgumentException("serviceCidr must be an IPv4 CIDR with a prefix from /12 to /28: "
                    + cidr);
        }
        long mask = (0xffffffffL << (32 - bits)) & 0xffffffffL;
        if ((address & mask) != address) {
            throw new IllegalArgumentException("serviceCidr has host bits set: " + cidr);
        }
        this.cidr = cidr;
        this.base = address;
        this.size = (1L << (32 - bits)) - 2;  // without network and broadcast address
        this.lowBand = Math.min(Math.max(16, size / 16), 256);
        this.random = random;
        owners.put(base + 1, "default/kubernetes");
    }

    String cidr() {
        return cidr;
    }

    /** The range's first address, the {@code kubernetes} Service's. */
    String first() {
        return format(base + 1);
    }

    /** Why {@code ip} cannot be given to Service {@code owner}, or null when it can. */
    String problem(String ip, String owner) {
        long a = parse(ip);
        if (a < 0) {
            return null;  // syntax is validation's business, reported there
        }
        if (a <= base || a > base + size) {
            return "provided IP " + ip + " is not in the valid range. The range of valid IPs is " + cidr;
        }
        String holder = owners.get(a);
        return holder != null && !holder.equals(owner) ? "provided IP is already allocated" : null;
    }

    /** A free address, from the upper band first, as {@code AllocateNext} does. */
    String next() {
        long upper = size - lowBand;
        for (long[] band : new long[][] {{lowBand + 1, upper}, {1, lowBand}}) {
            if (band[1] <= 0) {
                continue;
            }
            long start = (long) (random.nextDouble() * band[1]);
            for (long i = 0; i < band[1]; i++) {
                long a = base + band[0] + (start + i) % band[1];
                if (!owners.containsKey(a)) {
                    return format(a);
                }
            }
        }
        throw ApiError.internal("failed to allocate a serviceIP: range is full");
    }

    /** Records what a stored Service holds after a write: {@code previous} released, {@code next} claimed. */
    void stored(JsonObject previous, JsonObject next) {
        if (previous != null) {
            for (long a : addresses(previous)) {
                owners.remove(a, key(previous));
            }
        }
        if (next != null) {
            for (long a : addresses(next)) {
                owners.put(a, key(next));
            }
        }
    }

    private static long[] addresses(JsonObject service) {
        String ip = Json.str(Json.obj(service, "spec"), "clusterIP");
        long a = ip == null ? -1 : parse(ip);
        return a < 0 ? new long[0] : new long[] {a};
    }

    static String key(JsonObject o) {
        JsonObject m = Json.obj(o, "metadata");
        return Json.str(m, "namespace") + "/" + Json.str(m, "name");
    }

    /** The address as a number, or -1 when {@code ip} is not a dotted IPv4 address. */
    static long parse(String ip) {
        if (ip == null) {
            return -1;
        }
        String[] octets = ip.split("\\.", -1);
        if (octets.length != 4) {
            return -1;
        }
        long a = 0;
        for (String o : octets) {
            if (o.isEmpty() || o.length() > 3 || !o.chars().allMatch(Character::isDigit)) {
                return -1;
            }
            int v = Integer.parseInt(o);
            if (v > 255) {
                return -1;
            }
            a = a << 8 | v;
        }
        return a;
    }

    private static String format(long a) {
        return (a >> 24 & 255) + "." + (a >> 16 & 255) + "." + (a >> 8 & 255) + "." + (a & 255);
    }
}
