package dev.leasehold.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** ZooKeeper's four-letter commands: {@code srvr} (whitelisted by default) and any other a test's server allows. */
final class FourLetterWords {

    private FourLetterWords() {
    }

    /** The server's {@code srvr} report, or an empty string if it does not answer (killed). */
    static String srvr(int port) {
        return command(port, "srvr");
    }

    /** The server's answer to {@code word}, or an empty string if it does not answer. */
    static String command(int port, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException down) {
            return "";
        }
    }
}
