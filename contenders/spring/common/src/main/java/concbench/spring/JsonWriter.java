package concbench.spring;

import java.io.IOException;

/** One type's JSON as UTF-8 bytes, written by Boot's auto-configured mapper ({@link BootJson#writerFor}). */
@FunctionalInterface
public interface JsonWriter {
    byte[] write(Object value) throws IOException;
}
