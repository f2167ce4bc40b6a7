package dev.sluice.bench.handler;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time and allocated bytes of this JVM's threads, the AWS stub's left out ({@link
 * AwsStub#THREAD_PREFIX}, {@link AwsStub#DISPATCHER}): the handler's thread, its sinks' and
 * writers' pools and whatever threads the SDK and its HTTP client run. JVM-internal threads (GC,
 * JIT compilers) are not Java threads and are not in it; process CPU minus the stub's threads is
 * reported beside it.
 */
final class ThreadCpu {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ThreadCpu() {}

    /** Per counted thread: CPU nanoseconds and allocated bytes; the stub's CPU; the process's CPU. */
    record Snapshot(Map<Long, long[]> threads, Map<Long, String> names, long stubCpuNanos, long processCpuNanos) {

        /** What happened between {@code earlier} and this. */
        Delta since(Snapshot earlier) {
            long cpu = 0;
            long bytes = 0;
            Map<String, Long> byGroup = new TreeMap<>();
            for (Map.Entry<Long, long[]> e : threads.entrySet()) {
                long[] then = earlier.threads().getOrDefault(e.getKey(), new long[2]);
                cpu += e.getValue()[0] - then[0];
                bytes += e.getValue()[1] - then[1];
                byGroup.merge(group(names.get(e.getKey())), e.getValue()[0] - then[0], Long::sum);
            }
            int lost = 0;
            for (Long id : earlier.threads().keySet()) {
                if (!threads.containsKey(id)) {
                    lost++; // ended in between (an idle cached-pool thread expiring): its last CPU time is unknown
                }
            }
            long process = (processCpuNanos - earlier.processCpuNanos()) - (stubCpuNanos - earlier.stubCpuNanos());
            byGroup.values().removeIf(n -> n == 0);
            return new Delta(cpu, bytes, process, lost, byGroup);
        }
    }

    /**
     * @param processCpuNanos the process's CPU time less the stub's threads' (GC and JIT included)
     * @param lostThreads counted threads that ended within the interval
     * @param cpuByThreadGroup CPU nanoseconds by thread name, numbering left out ({@code sluice-writer})
     */
    record Delta(
            long cpuNanos,
            long allocatedBytes,
            long processCpuNanos,
            int lostThreads,
            Map<String, Long> cpuByThreadGroup) {}

    /** A thread's name without its number: {@code pool-3-thread-2} → {@code pool-thread}. */
    static String group(String name) {
        return name == null ? "?" : name.replaceAll("-?\\d+", "");
    }

    static Snapshot take() {
        long process = OS.getProcessCpuTime();
        long[] ids = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        long[] cpu = THREADS.getThreadCpuTime(ids);
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, long[]> counted = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        long stub = 0;
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] == null || cpu[i] < 0) {
                continue; // ended meanwhile
            }
            String name = infos[i].getThreadName();
            if (name.startsWith(AwsStub.THREAD_PREFIX) || name.equals(AwsStub.DISPATCHER)) {
                stub += cpu[i];
            } else {
                counted.put(ids[i], new long[] {cpu[i], bytes[i]});
                names.put(ids[i], name);
            }
        }
        return new Snapshot(counted, names, stub, process);
    }
}
