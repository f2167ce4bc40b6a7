package dev.sluice.planner;

/** The per-shard Kinesis limit that sets the shard count. */
public enum ShardLimit {
    /** 1,000 records/s written per shard. */
    RECORDS("1,000 records/s written per shard"),
    /** 1 MiB/s written per shard. */
    BYTES("1 MiB/s written per shard"),
    /** 2 MiB/s read per shard, shared by polling consumers (or per consumer with enhanced fan-out). */
    READS("2 MiB/s read per shard"),
    /** What one shard's consumer can process, as a load run measured it ({@link MeasuredFigures}). */
    CONSUMER("the measured consumer ceiling per shard");

    private final String description;

    ShardLimit(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
