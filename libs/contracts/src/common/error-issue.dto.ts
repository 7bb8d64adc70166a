import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One problem of a request or a diagram. */
export class ErrorIssueDto {
  @ApiProperty({
    description:
      'Where the problem is, as dotted segments (`statements.0.sql`, `diagram.nodes.2.id`); `body`, `cursor` or a field name for the request as a whole.',
  })
  path!: string;

  @ApiProperty({ description: 'For people.' })
  message!: string;

  @ApiPropertyOptional({ description: 'The diagram node the problem is about (invalid_workflow).' })
  nodeId?: string;

  @ApiPropertyOptional({ description: 'The diagram edge the problem is about (invalid_workflow).' })
  edgeId?: string;
}
