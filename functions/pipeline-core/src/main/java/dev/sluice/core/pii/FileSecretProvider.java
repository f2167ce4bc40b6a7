package dev.sluice.core.pii;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Secrets kept as files in one folder, for local runs: secret {@code pii-hmac-key} is the file
 * {@code <directory>/pii-hmac-key}. The file holds the secret's raw bytes; one trailing line break
 * ({@code \n} or {@code \r\n}), as editors and {@code echo} add it, is not part of the secret. (A
 * binary key whose last byte is {@code 0x0A} therefore cannot be stored this way; store such a key
 * as text, e.g. its base64 form, which is a perfectly good HMAC key.)
 *
 * <p>Names may contain {@code /} to reach sub-folders but may not leave the folder. A missing or
 * empty file is a {@link SecretUnavailableException}; a file other users may read is used, with a
 * warning (once per file) to {@code chmod 600} it. Files are read on every call: wrap this provider
 * in a {@link CachingSecretProvider} if that matters.
 */
public final class FileSecretProvider implements SecretProvider {

    private static final Logger LOG = LoggerFactory.getLogger(FileSecretProvider.class);

    private final Path directory;
    private final Set<Path> warned = ConcurrentHashMap.newKeySet();

    /** Secrets in this folder. */
    public FileSecretProvider(Path directory) {
        if (directory == null) {
            throw new IllegalArgumentException("the secrets folder must not be null");
        }
        this.directory = directory.toAbsolutePath().normalize();
    }

    @Override
    public byte[] secret(String name) {
        SecretNames.require(name);
        Path file = directory.resolve(name).normalize();
        if (!file.startsWith(directory) || file.equals(directory)) {
            throw new SecretUnavailableException(name, "the name leaves the secrets folder " + directory);
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new SecretUnavailableException(name, "no file " + file);
        } catch (IOException e) {
            throw new SecretUnavailableException(
                    name, "cannot read " + file + " (" + e.getClass().getSimpleName() + ")", false, e);
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        if (length == 0) {
            Arrays.fill(bytes, (byte) 0);
            throw new SecretUnavailableException(name, "the file " + file + " is empty");
        }
        warnIfWorldReadable(file);
        if (length == bytes.length) {
            return bytes;
        }
        byte[] secret = Arrays.copyOf(bytes, length);
        Arrays.fill(bytes, (byte) 0);
        return secret;
    }

    private void warnIfWorldReadable(Path file) {
        if (worldReadable(file) && warned.add(file)) {
            LOG.warn("Secret file {} is readable by every user of this machine; restrict it with chmod 600", file);
        }
    }

    /** Whether every user may read a file; {@code false} where POSIX permissions do not exist. */
    static boolean worldReadable(Path file) {
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (view == null) {
            return false;
        }
        try {
            return view.readAttributes().permissions().contains(PosixFilePermission.OTHERS_READ);
        } catch (IOException e) {
            LOG.debug("Cannot read the permissions of secret file {}", file, e);
            return false;
        }
    }

    @Override
    public String toString() {
        return "FileSecretProvider[" + directory + "]";
    }
}
