package concbench.spring.mvc;

import concbench.spring.BootJson;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.JsonWriter;
import concbench.spring.User;
import concbench.spring.UserIds;
import concbench.spring.Waits;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * http-aggregate: GET /user/{id}, assembled by the active design's {@link UserService}.
 *
 * <p>The User record is serialized by Boot's Jackson mapper ({@link BootJson}) into bytes and sent
 * with a Content-Length, as TechEmpower's Spring MVC implementation does for its JSON test:
 * returning the record itself (@ResponseBody through Jackson's message converter; seen with Boot
 * 3.5's MappingJackson2HttpMessageConverter) makes the converter flush Tomcat's output stream,
 * which commits the response without a length, so Tomcat answers with Transfer-Encoding: chunked
 * (the contract asks for Content-Length).
 */
@RestController
@ConditionalOnAggregate
public class UserController {
    private final UserService userService;
    private final JsonWriter userWriter;
    private final Waits waits;
    private final JsonWriter waitsWriter;

    public UserController(UserService userService, BootJson json, Waits waits) {
        this.userService = userService;
        this.userWriter = json.writerFor(User.class);
        this.waits = waits;
        this.waitsWriter = json.writerFor(Waits.Report.class);
    }

    /**
     * Only digit ids match the mapping, so /user/abc, /user/-1 or /user/+5 are paths no handler
     * serves (404, as an unknown path); 0 and ids past 2^53 - 1 are answered 404 the same way.
     */
    @GetMapping("/user/{id:" + UserIds.PATTERN + "}")
    public ResponseEntity<byte[]> getUser(@PathVariable long id) throws Exception {
        if (!UserIds.isUserId(id)) throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        byte[] body = userWriter.write(userService.assembleUser(id));
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .contentLength(body.length)
                .body(body);
    }

    /** The in-process waits made so far ({@link Waits}), as bytes with their length as above. */
    @GetMapping("/waits")
    public ResponseEntity<byte[]> getWaits() throws Exception {
        byte[] body = waitsWriter.write(waits.report());
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .contentLength(body.length)
                .body(body);
    }
}
