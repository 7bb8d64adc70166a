import { CatalogSubjects, type RetentionOrganizationsRequest } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { RetentionService } from './retention.service.js';

/** The runner's question: which organizations have runs to trim, and after how many days. */
@Controller()
export class RetentionHandler {
  constructor(private readonly retention: RetentionService) {}

  @Handles(CatalogSubjects.retentionOrganizations)
  organizationsToTrim(request: RetentionOrganizationsRequest) {
    return this.retention.organizationsToTrim(request);
  }
}
