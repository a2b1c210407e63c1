package concbench.spring;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** A downstream call that did not answer 200: the endpoint answers 502 Bad Gateway. */
@ResponseStatus(HttpStatus.BAD_GATEWAY)
public class DownstreamException extends RuntimeException {
    public DownstreamException(String message) {
        super(message, null, false, false);
    }
}
