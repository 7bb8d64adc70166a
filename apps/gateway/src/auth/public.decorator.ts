import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** A route that needs no credential and is not rate limited. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
