import { Filter, parse } from 'scim2-parse-filter';
import { ScimError } from './errors';

/** A `filter` parameter or PATCH value path (RFC 7644 §3.4.2.2), parsed; what it names is checked where it is run. */
export function parseFilter(text: string): Filter {
  try {
    return parse(text);
  } catch (e) {
    throw new ScimError(
      400,
      'invalidFilter',
      `The filter '${text}' cannot be parsed (${(e as Error).message}); filters look like userName eq "ada@example.com" ` +
        'or (name.familyName sw "L" and active eq true)',
    );
  }
}
