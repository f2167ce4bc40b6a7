package dev.sluice.core.pii;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Turns a personal value into a stable token: a keyed HMAC-SHA256 of the value's UTF-8 bytes. The
 * same key and value give the same token in every run and JVM, so tokenised data stays joinable
 * (count distinct customers, join payments to sign-ups) while the value cannot be recovered or
 * confirmed without the key.
 *
 * <h2>Token format</h2>
 *
 * {@code tok_} [<i>keyId</i> {@code _}] <i>mac</i>, where <i>mac</i> is the first 16 bytes (128 bits)
 * of {@code HMAC-SHA256(key, UTF-8(value))} in base64url without padding: always 22 characters of
 * {@code [A-Za-z0-9_-]}, at the end of the token. For example {@code tok_Xq4...} (26 characters) or,
 * with key id {@code k2}, {@code tok_k2_Xq4...} (29 characters). The optional key id (1 to 16 letters
 * or digits) tells tokens of a rotated key apart from those of the old key; tokens of different keys
 * differ anyway, the id only makes it visible which key made them.
 *
 * <p>Why 128 bits: truncating an HMAC to half its length is allowed by NIST SP 800-107 and RFC 2104
 * (no fewer than 80 bits, no fewer than half the output). Tokens need to be unique, not
 * unforgeable-for-long, so the figure that matters is collisions: by the birthday bound, among
 * {@code n} distinct values the chance that two share a token is about {@code n²/2¹²⁹} — about
 * 1.5·10⁻¹⁵ for a trillion (10¹²) distinct values. A collision would merge two values in joins,
 * never reveal one. 22 characters keep tokens short in lakes and keys.
 *
 * <h2>Key</h2>
 *
 * At least {@value #MIN_KEY_BYTES} bytes (the HMAC-SHA256 output length, as RFC 2104 recommends),
 * e.g. {@code openssl rand -base64 32}. The key is copied into the JCE key object; the caller may
 * clear its array afterwards. Neither the key nor any value appears in {@code toString()} or in
 * exception messages.
 *
 * <h2>Threads and speed</h2>
 *
 * Thread-safe. The HMAC is computed as RFC 2104 defines it, from SHA-256 digests whose key blocks
 * ({@code K ⊕ ipad}, {@code K ⊕ opad}) were hashed once at construction: each token clones those two
 * digest states instead of hashing both key blocks again, which is what {@link Mac} does on every
 * call (four SHA-256 blocks per short value instead of two). Where the JVM's SHA-256 cannot be
 * cloned, a {@link Mac} is used. Each thread has its own copies and scratch buffers: a call
 * allocates the two digest clones and the returned token (values longer than {@value
 * #MAX_RETAINED_BUFFER} bytes use a temporary buffer).
 */
public final class Tokenizer {

    /** The start of every token. */
    public static final String PREFIX = "tok_";

    /** The shortest key accepted, in bytes. */
    public static final int MIN_KEY_BYTES = 32;

    /** How many bytes of the MAC a token keeps. */
    public static final int MAC_BYTES = 16;

    /** The length of the encoded MAC at the end of every token: base64url of 16 bytes, unpadded. */
    public static final int MAC_CHARS = 22;

    static final String ALGORITHM = "HmacSHA256";
    static final String DIGEST = "SHA-256";
    /** SHA-256's block size, the length of HMAC's padded key. */
    private static final int BLOCK_BYTES = 64;

    static final int MAX_RETAINED_BUFFER = 16 * 1024;

    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9]{1,16}");
    private static final byte[] BASE64URL =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);

    private final String keyId;
    private final byte[] prefix;
    private final SecretKeySpec key;
    private final Mac prototype;
    /** SHA-256 after the block {@code K ⊕ ipad}, and after {@code K ⊕ opad}; null: use {@link Mac}. */
    private final MessageDigest innerPrototype;

    private final MessageDigest outerPrototype;
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(this::newScratch);

    /** A tokenizer without a key id: tokens look like {@code tok_Xq4...}. */
    public Tokenizer(byte[] key) {
        this(key, null);
    }

    /**
     * A tokenizer whose tokens carry a key id: {@code tok_<keyId>_Xq4...}.
     *
     * @param key the HMAC key, at least {@value #MIN_KEY_BYTES} bytes; copied
     * @param keyId 1 to 16 letters or digits, or {@code null} for none
     */
    public Tokenizer(byte[] key, String keyId) {
        if (key == null || key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("the tokenisation key must have at least " + MIN_KEY_BYTES
                    + " bytes, it has " + (key == null ? 0 : key.length));
        }
        if (keyId != null && !KEY_ID.matcher(keyId).matches()) {
            throw new IllegalArgumentException("key id '" + keyId + "' must be 1 to 16 letters or digits");
        }
        this.keyId = keyId;
        this.prefix = (keyId == null ? PREFIX : PREFIX + keyId + "_").getBytes(StandardCharsets.US_ASCII);
        this.key = new SecretKeySpec(key, ALGORITHM);
        this.prototype = newMac(this.key);
        MessageDigest[] pads = keyedDigests(key);
        this.innerPrototype = pads == null ? null : pads[0];
        this.outerPrototype = pads == null ? null : pads[1];
    }

    /**
     * SHA-256 digests that have hashed HMAC's inner and outer key blocks (RFC 2104: the key, hashed
     * first if longer than a block, padded with zeros to a block, XOR 0x36 and 0x5c), or {@code null}
     * if this JVM's SHA-256 cannot be cloned. The blocks are cleared once hashed.
     */
    private static MessageDigest[] keyedDigests(byte[] key) {
        try {
            MessageDigest inner = MessageDigest.getInstance(DIGEST);
            MessageDigest outer = MessageDigest.getInstance(DIGEST);
            byte[] k =
                    key.length > BLOCK_BYTES ? MessageDigest.getInstance(DIGEST).digest(key) : key;
            byte[] ipad = new byte[BLOCK_BYTES];
            byte[] opad = new byte[BLOCK_BYTES];
            for (int i = 0; i < BLOCK_BYTES; i++) {
                byte b = i < k.length ? k[i] : 0;
                ipad[i] = (byte) (b ^ 0x36);
                opad[i] = (byte) (b ^ 0x5c);
            }
            inner.update(ipad);
            outer.update(opad);
            Arrays.fill(ipad, (byte) 0);
            Arrays.fill(opad, (byte) 0);
            if (k != key) {
                Arrays.fill(k, (byte) 0);
            }
            inner.clone(); // fails here, once, where digests cannot be cloned
            return new MessageDigest[] {inner, outer};
        } catch (NoSuchAlgorithmException | CloneNotSupportedException e) {
            return null;
        }
    }

    /**
     * A tokenizer keyed by a secret, e.g. {@code fromSecret(secrets, "sluice/payments/pii-hmac-key",
     * "k1")}. The fetched bytes are cleared once the key is built.
     *
     * @throws SecretUnavailableException if the secret cannot be read
     * @throws IllegalArgumentException if the secret is shorter than {@value #MIN_KEY_BYTES} bytes
     */
    public static Tokenizer fromSecret(SecretProvider secrets, String secretName, String keyId) {
        byte[] key = secrets.secret(secretName);
        try {
            return new Tokenizer(key, keyId);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("secret '" + secretName + "': " + e.getMessage(), e);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /** The key id tokens carry, if any. */
    public Optional<String> keyId() {
        return Optional.ofNullable(keyId);
    }

    /** The length of every token this tokenizer makes. */
    public int tokenLength() {
        return prefix.length + MAC_CHARS;
    }

    /**
     * The token of a value: {@code tok_} [keyId {@code _}] + base64url(first 16 bytes of
     * HMAC-SHA256(key, UTF-8(value))). Unpaired surrogates are encoded as {@code ?}, exactly as
     * {@link String#getBytes(java.nio.charset.Charset)} does.
     */
    public String token(String value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot tokenise null");
        }
        Scratch s = scratch.get();
        byte[] utf8 = s.buffer(value.length() * 3);
        int length = Utf8.encode(value, utf8);
        byte[] digest = s.digest;
        try {
            if (s.inner != null) {
                // HMAC = H(K ⊕ opad || H(K ⊕ ipad || value)), from the digests of the key blocks
                MessageDigest inner = (MessageDigest) s.inner.clone();
                inner.update(utf8, 0, length);
                inner.digest(digest, 0, digest.length);
                MessageDigest outer = (MessageDigest) s.outer.clone();
                outer.update(digest, 0, digest.length);
                outer.digest(digest, 0, digest.length);
            } else {
                Mac mac = s.mac;
                mac.update(utf8, 0, length);
                mac.doFinal(digest, 0);
            }
        } catch (ShortBufferException | DigestException e) {
            throw new IllegalStateException("HMAC-SHA256 output does not fit 32 bytes", e);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("SHA-256 could be cloned once but not again", e);
        }
        encodeMac(digest, s.token, prefix.length);
        return new String(s.token, 0, s.token.length, StandardCharsets.ISO_8859_1);
    }

    /** base64url without padding of {@code digest[0..16)} into {@code out[offset..offset+22)}. */
    private static void encodeMac(byte[] digest, byte[] out, int offset) {
        int o = offset;
        int i = 0;
        for (; i + 3 <= MAC_BYTES; i += 3) {
            int bits = (digest[i] & 0xff) << 16 | (digest[i + 1] & 0xff) << 8 | (digest[i + 2] & 0xff);
            out[o++] = BASE64URL[bits >>> 18];
            out[o++] = BASE64URL[(bits >>> 12) & 0x3f];
            out[o++] = BASE64URL[(bits >>> 6) & 0x3f];
            out[o++] = BASE64URL[bits & 0x3f];
        }
        int last = digest[i] & 0xff; // 16 = 5 * 3 + 1: one byte left, two characters
        out[o++] = BASE64URL[last >>> 2];
        out[o] = BASE64URL[(last & 0x03) << 4];
    }

    private Scratch newScratch() {
        byte[] token = new byte[prefix.length + MAC_CHARS];
        System.arraycopy(prefix, 0, token, 0, prefix.length);
        if (innerPrototype != null) {
            synchronized (innerPrototype) {
                try {
                    return new Scratch(
                            null,
                            (MessageDigest) innerPrototype.clone(),
                            (MessageDigest) outerPrototype.clone(),
                            token);
                } catch (CloneNotSupportedException e) {
                    // fall back to a Mac below
                }
            }
        }
        Mac mac;
        synchronized (prototype) {
            try {
                mac = (Mac) prototype.clone();
            } catch (CloneNotSupportedException e) {
                mac = null;
            }
        }
        if (mac == null) {
            mac = newMac(key);
        }
        return new Scratch(mac, null, null, token);
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no " + ALGORITHM, e);
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("the tokenisation key is not usable for " + ALGORITHM);
        }
    }

    @Override
    public String toString() {
        return "Tokenizer[" + ALGORITHM + ", keyId=" + (keyId == null ? "none" : keyId) + "]";
    }

    /** One thread's keyed digests (or MAC) and buffers. */
    private static final class Scratch {
        final Mac mac;
        final MessageDigest inner;
        final MessageDigest outer;
        final byte[] digest = new byte[32];
        final byte[] token;
        byte[] utf8 = new byte[256];

        Scratch(Mac mac, MessageDigest inner, MessageDigest outer, byte[] token) {
            this.mac = mac;
            this.inner = inner;
            this.outer = outer;
            this.token = token;
        }

        byte[] buffer(int size) {
            if (size <= utf8.length) {
                return utf8;
            }
            if (size > MAX_RETAINED_BUFFER) {
                return new byte[size];
            }
            utf8 = new byte[Math.max(size, Math.min(utf8.length * 2, MAX_RETAINED_BUFFER))];
            return utf8;
        }
    }
}
