package io.tenantplane.bench;

final class LiveSection {
    record Config() {
        static Config full() { return new Config(); }
        static Config quick() { return new Config(); }
    }
    static Report.Section run(Config c) { throw new UnsupportedOperationException("LiveSection"); }
}
