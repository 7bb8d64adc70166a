import { ApiProperty } from '@nestjs/swagger';

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#common';

import { OptionalIntField, OptionalTextField } from './field.decorators.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '#common';

export class PageQueryDto {
  /** The `nextCursor` of the previous page. */
  @OptionalTextField({ min: 1, max: 512, description: 'The nextCursor of the previous page.' })
  cursor?: string;

  @OptionalIntField({
    min: 1,
    max: MAX_PAGE_SIZE,
    defaultValue: DEFAULT_PAGE_SIZE,
    description: 'Page size.',
  })
  limit?: number;
}

type Constructor = new (...args: never[]) => object;

const pageClasses = new Map<Constructor, Constructor>();

/** A named OpenAPI schema for a page of `item`, e.g. `ProjectPage`. */
export function PageOf(item: Constructor): Constructor {
  const existing = pageClasses.get(item);
  if (existing) return existing;
  class PageDto {
    @ApiProperty({ type: () => [item] })
    data!: unknown[];

    @ApiProperty({
      type: String,
      nullable: true,
      description: 'Pass as `cursor` for the next page; null on the last.',
    })
    nextCursor!: string | null;
  }
  Object.defineProperty(PageDto, 'name', { value: `${item.name.replace(/Dto$/, '')}Page` });
  pageClasses.set(item, PageDto);
  return PageDto;
}
