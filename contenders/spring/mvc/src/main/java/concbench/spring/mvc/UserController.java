package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.User;
import concbench.spring.UserIds;
import org.springframework.context.annotation.Conditional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * http-aggregate: GET /user/{id}, assembled by the active design's {@link UserService} and
 * returned as the User record, which Boot's Jackson converter writes (the default on Boot 4:
 * {@link UserJson}).
 */
@RestController
@ConditionalOnAggregate
@Conditional(UserJson.AsRecord.class)
public class UserController {
    private final UserService userService;

    public UserController(UserService userService) {
        this.userService = userService;
    }

    /**
     * Only digit ids match the mapping, so /user/abc, /user/-1 or /user/+5 are paths no handler
     * serves (404, as an unknown path); 0 and ids past 2^53 - 1 are answered 404 the same way.
     */
    @GetMapping(value = "/user/{id:" + UserIds.PATTERN + "}", produces = MediaType.APPLICATION_JSON_VALUE)
    public User getUser(@PathVariable long id) throws Exception {
        if (!UserIds.isUserId(id)) throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        return userService.assembleUser(id);
    }
}
