package io.tenantplane.observe;

import java.util.Objects;

/** A tenant's identity on the host: the TenantCluster's namespace and name. */
public record TenantKey(String namespace, String name) {

    public TenantKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /**
     * This tenant's shard among {@code count}: FNV-1a (64 bit) of {@code namespace/name}, mixed by MurmurHash3's
     * 64-bit finalizer, unsigned, mod {@code count}. (FNV-1a alone is not enough: its low bits depend only on the low
     * bits of each character, so names like {@code team-7/t7} crowd into a few shards of a power-of-two count.) Stable
     * across releases: replicas of one installation must agree on it.
     */
    public int shard(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, got " + count);
        }
        long h = 0xcbf29ce484222325L;
        for (byte b : (namespace + "/" + name).getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) Long.remainderUnsigned(h, count);
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
