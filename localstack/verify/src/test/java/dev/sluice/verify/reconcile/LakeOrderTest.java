package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LakeOrderTest {

    private static final String DIR = "payments/dt=2026-12-02/hr=06/payments-raw-f8cedd88-shardId-000000000001-";

    @Test
    void ledgerKeysAreOrderedByTheirFirstPosition() {
        assertThat(LakeOrder.shard(DIR + "0042.00000.jsonl.gz")).isEqualTo("shardId-000000000001");
        assertThat(LakeOrder.position(DIR + "0042.00000.jsonl.gz")).isEqualTo("0042.00000");
        assertThat(LakeOrder.position(DIR + "0042.00000.g2.jsonl.gz")).isEqualTo("0042.00000.g2");
    }

    @Test
    void claimModeKeysAreOrderedByTheirFirstPositionNotTheirToken() {
        String early = DIR + "0042.00000-ffffffffffffffff.jsonl.gz";
        String late = DIR + "0043.00000-0000000000000000.jsonl.gz";

        assertThat(LakeOrder.position(early)).isEqualTo("0042.00000");
        assertThat(LakeOrder.position(early)).isLessThan(LakeOrder.position(late));
    }
}
