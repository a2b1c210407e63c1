package concbench.spring.mvc;

import concbench.spring.BootJson;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.JsonWriter;
import concbench.spring.User;
import concbench.spring.UserIds;
import org.springframework.context.annotation.Conditional;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * http-aggregate: GET /user/{id} as {@link UserController}, but the User record is serialized by
 * Boot's Jackson mapper ({@link BootJson}) into bytes and sent with a Content-Length, as
 * TechEmpower's Spring MVC implementation does for its JSON test: Boot 3.5's converter would
 * answer chunked ({@link UserJson}); on Boot 4 the variant spring-mvc-json-bytes.
 */
@RestController
@ConditionalOnAggregate
@Conditional(UserJson.AsBytes.class)
public class UserBytesController {
    private final UserService userService;
    private final JsonWriter userWriter;

    public UserBytesController(UserService userService, BootJson json) {
        this.userService = userService;
        this.userWriter = json.writerFor(User.class);
    }

    /** As {@link UserController#getUser}. */
    @GetMapping("/user/{id:" + UserIds.PATTERN + "}")
    public ResponseEntity<byte[]> getUser(@PathVariable long id) throws Exception {
        if (!UserIds.isUserId(id)) throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        byte[] body = userWriter.write(userService.assembleUser(id));
        return UserJson.answer(body);
    }
}
