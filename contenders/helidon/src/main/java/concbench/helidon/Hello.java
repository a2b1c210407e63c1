package concbench.helidon;

import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;

/** http-hello (seed 004): GET /hello -> 200 text/plain, 199 'x' and a newline, built once. */
final class Hello implements Handler {
    private static final byte[] BODY = ("x".repeat(199) + "\n").getBytes(StandardCharsets.US_ASCII);

    @Override
    public void handle(ServerRequest req, ServerResponse res) {
        res.header(HeaderValues.CONTENT_TYPE_TEXT_PLAIN);
        res.send(BODY); // a byte[] goes out with Content-Length
    }
}
