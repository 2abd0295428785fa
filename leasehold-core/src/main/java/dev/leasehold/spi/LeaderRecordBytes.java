package dev.leasehold.spi;

import dev.leasehold.LeaderInfo;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * A leader record as one value, for a backend that stores it as the data of the term's own node or
 * key (ZooKeeper, etcd), where the token is that node's own (its czxid, its create revision) and
 * so is not stored: a magic prefix, the display id and the optional value, each as modified UTF-8.
 */
public final class LeaderRecordBytes {

    private static final int MAGIC = 0x4C484C31; // "LHL1"

    private LeaderRecordBytes() {
    }

    /** The bytes of {@code info}'s display id and value. */
    public static byte[] encode(LeaderInfo info) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeUTF(info.leaderId());
            out.writeBoolean(info.value().isPresent());
            out.writeUTF(info.value().orElse(""));
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return bytes.toByteArray();
    }

    /** The record in {@code data} for the term {@code token}; empty if data is no record (none published yet). */
    public static Optional<LeaderInfo> decode(byte[] data, long token) {
        if (data == null || data.length < 4) {
            return Optional.empty();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            if (in.readInt() != MAGIC) {
                return Optional.empty();
            }
            String id = in.readUTF();
            boolean hasValue = in.readBoolean();
            String value = in.readUTF();
            return Optional.of(new LeaderInfo(id, token, hasValue ? Optional.of(value) : Optional.empty()));
        } catch (IOException notARecord) {
            return Optional.empty();
        }
    }
}
