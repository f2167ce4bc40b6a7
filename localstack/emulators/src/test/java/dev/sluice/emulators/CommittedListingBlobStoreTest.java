package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class CommittedListingBlobStoreTest {

    @Test
    void theNameOfAPutInFlightIsHidden() {
        String key = "payments/dt=2026-12-07/hr=20/payments-shardId-000000000000-0001.jsonl.gz";
        assertThat(CommittedListingBlobStore.inFlight(key + "-" + UUID.randomUUID()))
                .isTrue();
    }

    @Test
    void sluicesOwnKeysAreListed() {
        assertThat(CommittedListingBlobStore.inFlight(
                        "payments/dt=2026-12-07/hr=20/payments-shardId-000000000000-0001.jsonl.gz"))
                .isFalse();
        // claim mode: the batch's token before the extension, never at the end
        assertThat(CommittedListingBlobStore.inFlight(
                        "clicks/dt=2026-12-07/hr=20/clicks-shardId-000000000001-0002-5f0c1d2e3a4b6c7d.jsonl.gz"))
                .isFalse();
        assertThat(CommittedListingBlobStore.inFlight(
                        "sluice-dead-letters/q/validate/payments/shardId-000000000000/4959-2"))
                .isFalse();
        // not a version 4 UUID: a key of one's own
        assertThat(CommittedListingBlobStore.inFlight("report-00000000-0000-0000-0000-000000000000"))
                .isFalse();
    }
}
