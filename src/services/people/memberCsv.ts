import { CsvFile, emailProblem, readCsvFile } from './accountCsv';
import { isOrganizationRole, normalizeEmail, OrganizationRole, ORGANIZATION_ROLES } from './members';

/** One person of a members file (`orgs add-members`). */
export interface MemberLine {
  line: number;
  email: string;
  name: string;
  role: OrganizationRole;
}

export type MemberFile = CsvFile<MemberLine>;

/** What a member's name may be: what lists show, as the settings page takes it. */
export const MEMBER_NAME_MAX = 200;

/** Everyone added by a file is a collaborator unless their line says otherwise. */
export const DEFAULT_ROLE: OrganizationRole = 'collaborator';

const COLUMNS = {
  required: ['email', 'name'],
  optional: ['role'],
  expected: `"email,name,role" (the member's e-mail, their name, and ${ORGANIZATION_ROLES.join(', ')} or nothing for ${DEFAULT_ROLE}; the role column may be left out)`,
};

/** A members file: `email,name,role` (or `email,name`), one person a line; each line read, or refused with why. */
export function readMemberFile(text: string): MemberFile {
  return readCsvFile<MemberLine>(text, COLUMNS, ({ email, name, role = '' }, line) => {
    const roleName = role.toLowerCase() || DEFAULT_ROLE;
    const problem = emailProblem(email) ?? nameProblem(name);
    if (problem) return { problem };
    if (!isOrganizationRole(roleName)) return { problem: `unknown role "${role}": give ${ORGANIZATION_ROLES.join(', ')}, or nothing for ${DEFAULT_ROLE}` };
    return { line, email: normalizeEmail(email), name, role: roleName };
  });
}

function nameProblem(name: string): string | undefined {
  if (!name) return 'the name is empty';
  if (name.length > MEMBER_NAME_MAX) return `the name is longer than ${MEMBER_NAME_MAX} characters`;
  if (/[\x00-\x1f\x7f]/.test(name)) return 'the name holds a control character';
  return undefined;
}
