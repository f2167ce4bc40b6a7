package dev.sluice.kcl.health;

import dev.sluice.kcl.worker.KclWorker;
import dev.sluice.kcl.worker.ShardRegistry;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import software.amazon.kinesis.leases.Lease;

/** {@code GET /leases}: the leases this worker holds, with their checkpoints and what it processed. */
@Path("/leases")
public class LeasesResource {

    @Inject
    KclWorker worker;

    /**
     * One held lease.
     *
     * @param shardId the lease key (the shard)
     * @param checkpoint the checkpoint in the lease (sequence number, {@code TRIM_HORIZON}, {@code
     *     SHARD_END}...)
     * @param leaseCounter KCL's lease counter
     * @param processed what this worker's processor reported, or {@code null}
     */
    public record HeldLease(
            String shardId, String checkpoint, long leaseCounter, ShardRegistry.ShardStatus processed) {}

    /**
     * @param workerId this worker
     * @param stage pipeline/stage
     * @param leases held now
     */
    public record Leases(String workerId, String stage, List<HeldLease> leases) {}

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Leases leases() {
        Map<String, ShardRegistry.ShardStatus> shards = worker.registry().snapshot();
        List<HeldLease> held = worker.leases().stream()
                .sorted(Comparator.comparing(Lease::leaseKey))
                .map(l -> new HeldLease(
                        l.leaseKey(),
                        ShardRegistry.format(l.checkpoint()),
                        l.leaseCounter() == null ? 0 : l.leaseCounter(),
                        shards.get(l.leaseKey())))
                .toList();
        return new Leases(worker.workerId(), worker.stageName(), held);
    }
}
