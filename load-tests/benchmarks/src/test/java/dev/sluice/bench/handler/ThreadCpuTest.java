package dev.sluice.bench.handler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** What the handler bench relies on to know that a round's CPU reading is incomplete. */
class ThreadCpuTest {

    @Test
    void aCountedThreadThatEndsBetweenTwoSnapshotsIsReportedLost() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread worker = new Thread(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "sluice-sink");
        worker.start();
        started.await();
        ThreadCpu.Snapshot before = ThreadCpu.take();
        assertThat(before.threads()).containsKey(worker.getId());

        release.countDown();
        worker.join();

        assertThat(ThreadCpu.take().since(before).lostThreads()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void threadsThatLiveThroughTheIntervalAreCountedAndGroupedByName() {
        ThreadCpu.Snapshot before = ThreadCpu.take();
        long sum = 0;
        for (int i = 0; i < 2_000_000; i++) {
            sum += Long.numberOfTrailingZeros(i ^ sum);
        }
        ThreadCpu.Delta delta = ThreadCpu.take().since(before);

        assertThat(sum).isPositive();
        assertThat(delta.cpuNanos()).isPositive();
        assertThat(delta.cpuByThreadGroup())
                .containsKey(ThreadCpu.group(Thread.currentThread().getName()));
        assertThat(ThreadCpu.group("pool-3-thread-2")).isEqualTo("pool-thread");
    }
}
