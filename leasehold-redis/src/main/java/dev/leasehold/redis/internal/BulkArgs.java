package dev.leasehold.redis.internal;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * The arguments of an {@code EVALSHA} or {@code EVAL} with many keys and values (a renewal call
 * carries two per lease), written straight into the connection's buffer. Lettuce's own arguments
 * cost, per key and value, an argument object, a temporary pooled buffer (with the leak detector's
 * sampled stack trace) and a string for the length; here each is its length and its UTF-8 bytes,
 * the same bytes Lettuce's {@link StringCodec#UTF8} writes.
 *
 * <p>The script, the number of keys and the first key are Lettuce's own arguments: a Cluster
 * connection routes a command by its first key argument.
 */
final class BulkArgs extends CommandArgs<String, String> {

    private static final short CRLF = ('\r' << 8) | '\n';

    private final String[] keys;
    private final String[] values;

    /**
     * @param script the script's SHA-1 (for {@code EVALSHA}) or its source (for {@code EVAL})
     */
    BulkArgs(String script, String[] keys, String[] values) {
        super(StringCodec.UTF8);
        this.keys = keys;
        this.values = values;
        add(script);
        add(keys.length);
        if (keys.length > 0) {
            addKey(keys[0]);
        }
    }

    @Override
    public int count() {
        return super.count() + Math.max(0, keys.length - 1) + values.length;
    }

    @Override
    public void encode(ByteBuf buf) {
        super.encode(buf);
        for (int i = 1; i < keys.length; i++) {
            writeBulk(buf, keys[i]);
        }
        for (String value : values) {
            writeBulk(buf, value);
        }
    }

    /** One RESP bulk string: {@code $<length>\r\n<UTF-8 bytes>\r\n}. */
    private static void writeBulk(ByteBuf buf, String text) {
        int length = ByteBufUtil.utf8Bytes(text);
        buf.writeByte('$');
        writeDecimal(buf, length);
        buf.writeShort(CRLF);
        ByteBufUtil.reserveAndWriteUtf8(buf, text, length);
        buf.writeShort(CRLF);
    }

    /** A non-negative int in decimal ASCII, without a string in between. */
    private static void writeDecimal(ByteBuf buf, int value) {
        int divisor = 1;
        while (value / divisor >= 10) {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10) {
            buf.writeByte('0' + value / divisor % 10);
        }
    }

    @Override
    public String toCommandString() {
        return super.toCommandString() + " ... (" + (count() - super.count()) + " more keys and values)";
    }
}
