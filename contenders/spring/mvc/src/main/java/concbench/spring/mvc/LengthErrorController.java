package concbench.spring.mvc;

import concbench.spring.BootJson;
import concbench.spring.JsonWriter;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.Map;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Boot's error answers (404 for a path no handler serves, 405, 502 ...) with a Content-Length, as
 * the contract asks of every response. Boot's own BasicErrorController returns the same JSON
 * object (timestamp, status, error, path) as a Map, which Jackson's message converter flushes
 * into Tomcat's stream before the length is known, so Tomcat sends it chunked. This controller
 * takes its place (Boot backs off when an ErrorController bean exists: the documented way to
 * replace the error handling) and sends the same attributes as bytes with their length, as
 * UserController does for its JSON. Its path is Boot's: spring.web.error.path in Boot 4,
 * server.error.path in Boot 3.5 (Boot 4 moved the error properties out of server.*), /error
 * unless set.
 */
@RestController
public class LengthErrorController extends BootWeb.ErrorControllerBase {
    private final JsonWriter writer;

    public LengthErrorController(ApplicationContext ctx, BootJson json) {
        super(ctx);
        this.writer = json.writerFor(Map.class);
    }

    @RequestMapping("${spring.web.error.path:${server.error.path:${error.path:/error}}}")
    public ResponseEntity<byte[]> error(HttpServletRequest request) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status = code instanceof Integer c && HttpStatus.resolve(c) != null
                ? HttpStatus.valueOf(c) : HttpStatus.INTERNAL_SERVER_ERROR;
        byte[] body = writer.write(errorAttributes(request));
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .contentLength(body.length)
                .body(body);
    }
}
