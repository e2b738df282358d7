import { ApiClient, RefreshToken, SigningKey, WebToken } from './auth.js';
import { Customer, CustomerDatabase } from './customer.js';
import { Group, GroupMember } from './group.js';
import { Site } from './site.js';
import { User, UserSupervisor } from './user.js';

export { ApiClient, RefreshToken, SigningKey, WebToken, Customer, CustomerDatabase, Group, GroupMember, Site, User, UserSupervisor };

export const entities = [
  Customer,
  CustomerDatabase,
  Site,
  Group,
  GroupMember,
  User,
  UserSupervisor,
  ApiClient,
  RefreshToken,
  WebToken,
  SigningKey,
];
