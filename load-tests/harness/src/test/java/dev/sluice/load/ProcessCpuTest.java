package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

    private static final long S = 1_000_000_000L;

    @Test
    void eachProcessGetsItsCpuSecondsAverageAndFiveSecondPeakBusiestFirst() {
        Map<Long, String> commands = new LinkedHashMap<>();
        Map<Long, List<Long>> cpu = new LinkedHashMap<>();
        commands.put(10L, "java -jar /x/localstack/cli/target/sluice.jar load");
        cpu.put(10L, List.of(5 * S, 5 * S + S / 2, 6 * S, 6 * S + S / 2, 7 * S, 7 * S + S / 2, 8 * S));
        commands.put(11L, "node /x/localstack/bin/with-parent.js 10 /x/node_modules/kinesis-local/main.js");
        // idle for a second, then a full core for five seconds
        cpu.put(11L, List.of(2 * S, 2 * S, 3 * S, 4 * S, 5 * S, 6 * S, 7 * S));

        ProcessCpu.Usage usage = ProcessCpu.usage(2, 6.0, commands, cpu);

        assertThat(usage.processes()).extracting(ProcessCpu.Figure::name).containsExactly("kinesis-mock", "sluice JVM");
        ProcessCpu.Figure mock = usage.processes().get(0);
        assertThat(mock.cpuSeconds()).isCloseTo(5.0, within(1e-9));
        assertThat(mock.averageCores()).isCloseTo(5.0 / 6, within(1e-9));
        assertThat(mock.peakCores()).isCloseTo(1.0, within(1e-9));
        assertThat(mock.perSecond()).containsExactly(0.0, 1.0, 1.0, 1.0, 1.0, 1.0);
        ProcessCpu.Figure jvm = usage.processes().get(1);
        assertThat(jvm.cpuSeconds()).isCloseTo(3.0, within(1e-9));
        assertThat(usage.totalCores()).isCloseTo(8.0 / 6, within(1e-9));
    }

    @Test
    void processesOfOneKindAreNumberedAndNamedFromTheirCommandLines() {
        Map<Long, String> commands = new LinkedHashMap<>();
        Map<Long, List<Long>> cpu = new LinkedHashMap<>();
        commands.put(1L, "java -Xmx256m -jar /x/functions/kcl/target/quarkus-app/quarkus-run.jar");
        cpu.put(1L, List.of(0L, 2 * S));
        commands.put(2L, "java -Xmx256m -jar /x/functions/kcl/target/quarkus-app/quarkus-run.jar");
        cpu.put(2L, List.of(0L, S));
        commands.put(3L, "node /x/node_modules/dynalite/cli.js --port 1");
        cpu.put(3L, List.of(0L, S / 10));
        commands.put(4L, "node /x/localstack/bin/iam-evaluator.js");
        cpu.put(4L, List.of(0L, S / 20));
        commands.put(5L, "/usr/bin/node --preserve-symlinks /tmp/jsii-java-runtime1/lib/program.js");
        cpu.put(5L, List.of(0L, S / 30));

        ProcessCpu.Usage usage = ProcessCpu.usage(2, 1.0, commands, cpu);

        assertThat(usage.processes())
                .extracting(ProcessCpu.Figure::name)
                .containsExactly("kcl-worker", "kcl-worker #2", "dynalite", "iam-evaluator", "jsii (CDK synthesis)");
    }

    @Test
    void theBoundIsTheMachineWhenItsCoresAreUsedElseAProcessAtOneCoreElseNothing() {
        assertThat(usage(0.95, 0.95).bound()).startsWith("the machine's CPU (1.90 of 2 cores");
        assertThat(usage(0.97, 0.3).bound()).isEqualTo("kinesis-mock (0.97 cores, one thread: a Node.js emulator)");
        assertThat(usage(0.5, 0.3).bound())
                .startsWith("no process CPU-bound (0.80 of 2 cores in use; busiest kinesis-mock");
        assertThat(ProcessCpu.usage(2, 1.0, Map.of(), Map.of()).bound()).isEqualTo("not measured");
    }

    @Test
    void thisJvmsThreadsAreGroupedByPoolNameAndWhatNoJavaThreadUsedIsTheVmsOwn() {
        Map<Long, String> names = Map.of(
                1L,
                "access-gate-dynamodb-1",
                2L,
                "access-gate-dynamodb-12",
                3L,
                "main",
                4L,
                "HttpClient-2-SelectorManager");
        Map<Long, Long> cpu = Map.of(1L, 2 * S, 2L, S, 3L, S / 2, 4L, S / 4);

        List<ProcessCpu.ThreadFigure> threads = ProcessCpu.threads(10.0, 5.0, names, cpu);

        assertThat(threads)
                .extracting(ProcessCpu.ThreadFigure::name)
                .containsExactly(
                        "access-gate-dynamodb", ProcessCpu.JVM_INTERNAL, "main", "HttpClient-2-SelectorManager");
        ProcessCpu.ThreadFigure gate = threads.get(0);
        assertThat(gate.threads()).isEqualTo(2);
        assertThat(gate.cpuSeconds()).isCloseTo(3.0, within(1e-9));
        assertThat(gate.averageCores()).isCloseTo(0.3, within(1e-9));
        assertThat(gate.busiestThreadCores()).isCloseTo(0.2, within(1e-9));
        assertThat(threads.get(1).cpuSeconds()).isCloseTo(1.25, within(1e-9));
        assertThat(threads.get(1).threads()).isZero();
    }

    @Test
    void thisJvmAtACoreIsNotOneThreadUnlessOneOfItsThreadsUsedACore() {
        long self = ProcessHandle.current().pid();
        Map<Long, String> commands = Map.of(self, "java -jar sluice.jar", 7L, "node dynalite/cli.js");
        Map<Long, List<Long>> cpu = new LinkedHashMap<>();
        cpu.put(self, List.of(0L, 10 * S));
        cpu.put(7L, List.of(0L, 3 * S));
        ProcessCpu.Usage usage = ProcessCpu.usage(2, 10.0, commands, cpu);
        Map<Long, String> names = Map.of(1L, "sluice-writer", 2L, "sluice-writer", 3L, "access-gate-dynamodb-3");

        ProcessCpu.Usage spread =
                usage.withThreads(ProcessCpu.threads(10.0, 10.0, names, Map.of(1L, 3 * S, 2L, 3 * S, 3L, 2 * S)));
        assertThat(spread.bound())
                .isEqualTo("no process CPU-bound (1.30 of 2 cores in use; busiest sluice JVM at 1.00 over 3 threads,"
                        + " its busiest thread sluice-writer at 0.30)");

        ProcessCpu.Usage oneThread =
                usage.withThreads(ProcessCpu.threads(10.0, 10.0, names, Map.of(1L, 95 * S / 10, 2L, 0L, 3L, 0L)));
        assertThat(oneThread.bound()).isEqualTo("sluice JVM's thread sluice-writer (0.95 cores of the process's 1.00)");
    }

    @Test
    void aJvmWhoseThreadsWereNotReadIsNotCalledOneThread() {
        Map<Long, String> commands = Map.of(3L, "java -jar /x/quarkus-app/quarkus-run.jar");
        Map<Long, List<Long>> cpu = Map.of(3L, List.of(0L, 95 * S / 10));
        assertThat(ProcessCpu.usage(2, 10.0, commands, cpu).bound())
                .isEqualTo("kcl-worker (0.95 cores; its threads not measured)");
    }

    @Test
    void aMachineBusyWithOtherProcessesIsNamedAsTheBound() {
        ProcessCpu.Usage mine = usage(0.5, 0.3);
        ProcessCpu.Usage shared = new ProcessCpu.Usage(mine.cores(), mine.seconds(), mine.processes(), 1.95);
        assertThat(shared.othersCores()).isCloseTo(1.15, within(1e-9));
        assertThat(shared.bound()).startsWith("the machine's CPU, shared: 1.95 of 2 cores busy, 1.15 of them other");
        ProcessCpu.Usage alone = new ProcessCpu.Usage(mine.cores(), mine.seconds(), mine.processes(), 0.85);
        assertThat(alone.bound()).startsWith("no process CPU-bound");
    }

    @Test
    void theMachinesBusyTimeIsEverythingButIdleAndIowait() {
        long[] t = ProcessCpu.machine("cpu  100 5 50 800 20 3 2 10 0 0");
        assertThat(t).containsExactly(170L, 990L);
        assertThat(ProcessCpu.machine("cpu0 1 2 3 4 5 6 7 8")).isNull();
    }

    private static ProcessCpu.Usage usage(double mock, double jvm) {
        Map<Long, String> commands = new LinkedHashMap<>();
        Map<Long, List<Long>> cpu = new LinkedHashMap<>();
        commands.put(1L, "node kinesis-local/main.js");
        cpu.put(1L, List.of(0L, (long) (mock * 10 * S)));
        commands.put(2L, "java -jar sluice.jar");
        cpu.put(2L, List.of(0L, (long) (jvm * 10 * S)));
        return ProcessCpu.usage(2, 10.0, commands, cpu);
    }

    @Test
    void samplingThisJvmSeesItUseCpuOnTheThreadThatDidTheWork() throws InterruptedException {
        ProcessCpu sampler = ProcessCpu.start();
        long[] x = new long[1];
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        Thread busy = new Thread(
                () -> {
                    for (int i = 0; i < 50_000_000; i++) {
                        x[0] += Long.numberOfTrailingZeros(i * 31L + x[0]);
                    }
                    done.countDown();
                    try {
                        stopped.await(); // alive at the last sample (a thread that ends between samples
                        // counts as the VM's own)
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "busy-loop-1");
        busy.start();
        done.await();
        ProcessCpu.Usage usage = sampler.stop();
        stopped.countDown();
        busy.join();
        assertThat(x[0]).isNotZero();
        assertThat(usage.processes()).anySatisfy(f -> {
            assertThat(f.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(f.cpuSeconds()).isPositive();
        });
        assertThat(usage.threads()).anySatisfy(t -> {
            assertThat(t.name()).isEqualTo("busy-loop");
            assertThat(t.threads()).isEqualTo(1);
            assertThat(t.cpuSeconds()).isPositive();
        });
    }
}
