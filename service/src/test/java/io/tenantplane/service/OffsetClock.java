package io.tenantplane.service;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service's clock in a test that must let time pass: the system clock plus an offset the test moves on, so that
 * "a minute later" takes no minute. Added with {@code @AddBean(OffsetClock.class)}; it replaces
 * {@link Producers#clock()} for that test class only.
 */
@Alternative
@Priority(1)
@ApplicationScoped
class OffsetClock {

    private static final AtomicLong OFFSET_NANOS = new AtomicLong();

    /** Moves the service's time on by {@code d}. */
    static void advance(Duration d) {
        OFFSET_NANOS.addAndGet(d.toNanos());
    }

    @Produces
    Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException("the service reads UTC only");
            }

            @Override
            public Instant instant() {
                return Instant.now().plusNanos(OFFSET_NANOS.get());
            }
        };
    }
}
