package concbench.spring.mvc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.boot.web.error.ErrorAttributeOptions;
import org.springframework.boot.web.servlet.error.ErrorAttributes;
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.ServletWebRequest;

/**
 * Boot's error answers (404 for a path no handler serves, 405, 502 ...) with a Content-Length, as
 * the contract asks of every response. Boot's own BasicErrorController returns the same JSON
 * object (timestamp, status, error, path) as a Map, which Jackson's message converter flushes
 * into Tomcat's stream before the length is known, so Tomcat sends it chunked. This controller
 * takes its place (Boot backs off when an ErrorController bean exists: the documented way to
 * replace the error handling) and sends the same attributes as bytes with their length, as
 * UserController does for its JSON.
 */
@RestController
public class LengthErrorController implements ErrorController {
    private final ErrorAttributes errorAttributes;
    private final ObjectWriter writer;

    public LengthErrorController(ErrorAttributes errorAttributes, ObjectMapper objectMapper) {
        this.errorAttributes = errorAttributes;
        this.writer = objectMapper.writerFor(Map.class);
    }

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public ResponseEntity<byte[]> error(HttpServletRequest request) throws JsonProcessingException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status = code instanceof Integer c && HttpStatus.resolve(c) != null
                ? HttpStatus.valueOf(c) : HttpStatus.INTERNAL_SERVER_ERROR;
        Map<String, Object> attributes = errorAttributes.getErrorAttributes(
                new ServletWebRequest(request), ErrorAttributeOptions.defaults());
        byte[] body = writer.writeValueAsBytes(attributes);
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .contentLength(body.length)
                .body(body);
    }
}
