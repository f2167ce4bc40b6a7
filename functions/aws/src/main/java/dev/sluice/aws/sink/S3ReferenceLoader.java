package dev.sluice.aws.sink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.access.Access;
import dev.sluice.core.enrich.ReferenceLoader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/** Reads reference items from an S3 object of JSON lines, one item per line. */
public final class S3ReferenceLoader implements ReferenceLoader {

    /** What the loader calls: {@code GetObject} of exactly {@code key}, decrypted with the lake's key. */
    public static List<Access> access(String key) {
        return List.of(Access.objects(key, "s3:GetObject"), Access.key("s3", "kms:Decrypt"));
    }

    private final S3Client s3;
    private final String bucket;
    private final String key;
    private final String keyField;
    private final ObjectMapper mapper;

    public S3ReferenceLoader(S3Client s3, String bucket, String key, String keyField, ObjectMapper mapper) {
        this.s3 = s3;
        this.bucket = bucket;
        this.key = key;
        this.keyField = keyField;
        this.mapper = mapper;
    }

    @Override
    public Map<String, JsonNode> loadAll() throws IOException {
        Map<String, JsonNode> items = new HashMap<>();
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(s3.getObject(b -> b.bucket(bucket).key(key)), StandardCharsets.UTF_8))) {
            int number = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode item = mapper.readTree(line);
                JsonNode id = item.get(keyField);
                if (id == null || !id.isValueNode()) {
                    throw new IOException(describe() + " line " + number + " has no '" + keyField + "'");
                }
                items.put(id.asText(), item);
            }
        }
        return items;
    }

    @Override
    public String describe() {
        return "s3://" + bucket + "/" + key;
    }
}
