package dev.sluice.emulators;

import java.util.concurrent.CountDownLatch;

/**
 * Started in a separate JVM by {@link LocalAwsLifecycleIT}: starts a stack, prints its child PIDs,
 * then waits until it is killed.
 */
public final class OrphanedStackMain {

    static final String CHILD = "child-pid ";
    static final String READY = "ready";

    private OrphanedStackMain() {}

    public static void main(String[] args) throws InterruptedException {
        LocalAws aws = LocalAws.start(LocalAwsOptions.defaults());
        for (ProcessHandle child : aws.childProcesses()) {
            System.out.println(CHILD + child.pid());
        }
        System.out.println(READY);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
