package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LakeLedgerCheckTest {

    @Test
    void ledgerItemKeyNamesThePrefixOfItsShardsObjectsInItsHour() {
        assertThat(LakeLedgerCheck.objectPrefix(
                        "payments/dt=2026-12-02/hr=06/payments-raw-f8cedd88/shardId-000000000001"))
                .isEqualTo("payments/dt=2026-12-02/hr=06/payments-raw-f8cedd88-shardId-000000000001-");
    }
}
