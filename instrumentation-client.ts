/**
 * Runs in the browser before the pages' own code. The pages' Content-Security-Policy allows no eval, which zod probes
 * for (`new Function`) when it builds an object's parser: in the browser it parses without compiling instead.
 */
import { z } from "zod";

z.config({ jitless: true });
