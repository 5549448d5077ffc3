import { Op } from 'sequelize';
import { Organization, User } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { notFound } from '../../errors';

/** The signed-in user and the organizations they are an active member of, with their role in each, by name. */
export async function signedInUser(p: Principal) {
  const [user, organizations] = await Promise.all([
    User.findByPk(p.userId, { attributes: ['id', 'name', 'email'] }),
    Organization.findAll({ where: { id: { [Op.in]: [...p.organizations.keys()] } }, attributes: ['id', 'name'], order: [['name', 'ASC'], ['id', 'ASC']] }),
  ]);
  if (!user) throw notFound('User not found');
  return {
    user: { id: user.id, name: user.name, email: user.email },
    organizations: organizations.map((o) => ({ id: o.id, name: o.name, role: p.organizations.get(o.id)! })),
  };
}
