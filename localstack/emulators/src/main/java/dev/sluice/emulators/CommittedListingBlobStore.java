package dev.sluice.emulators;

import java.util.List;
import java.util.regex.Pattern;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * s3proxy's transient store as S3 lists: only objects whose PUT has completed.
 *
 * <p>s3proxy 4.1.0 writes each PUT to a file named {@code <key>-<random UUID>} beside the key and
 * then renames it onto the key. A {@code ListObjectsV2} that runs meanwhile lists that file as an
 * object, and a {@code GetObject} of it a moment later answers 404 {@code NoSuchKey}. S3 never lists
 * an object before its PUT completes, so this store drops those in-flight names from every listing
 * (a reconciler polling the lake while the pipeline writes it failed on exactly that:
 * {@code ./sluice smoke --pipeline payments}, "The specified key does not exist").
 */
final class CommittedListingBlobStore extends ForwardingBlobStore {

    /** {@code <key>-} and a version 4 UUID as {@link java.util.UUID#randomUUID()} prints it. */
    private static final Pattern IN_FLIGHT =
            Pattern.compile(".+-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

    CommittedListingBlobStore(BlobStore delegate) {
        super(delegate);
    }

    @Override
    public ListObjectsV2Response list(ListObjectsV2Request request) {
        ListObjectsV2Response listed = super.list(request);
        List<S3Object> committed = listed.contents().stream()
                .filter(object -> !inFlight(object.key()))
                .toList();
        if (committed.size() == listed.contents().size()) {
            return listed;
        }
        int dropped = listed.contents().size() - committed.size();
        return listed.toBuilder()
                .contents(committed)
                .keyCount(listed.keyCount() == null ? null : listed.keyCount() - dropped)
                .build();
    }

    /**
     * Whether {@code key} is the name s3proxy gives a PUT still being written. A key of one's own that
     * ends in {@code -} and a random UUID would be hidden too: Sluice names none so (lake objects end
     * in their batch's shard and sequence numbers, claim checks in the record's position).
     */
    static boolean inFlight(String key) {
        return IN_FLIGHT.matcher(key).matches();
    }
}
