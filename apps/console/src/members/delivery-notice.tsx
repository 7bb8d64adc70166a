import { CopyValue } from '../components/ui';

/** How an invitation reaches its person: by email, or by a link the inviter hands over. */
export interface Delivery {
  email: string;
  link: string | null;
}

/** Said once an invitation is made: emailed, or the link to hand over. */
export function DeliveryNotice({ delivery }: { delivery: Delivery }) {
  if (!delivery.link)
    return (
      <div className="notice success" role="status">
        Invitation emailed to {delivery.email}.
      </div>
    );
  return (
    <CopyValue
      label={`Invitation for ${delivery.email} made.`}
      note="This installation does not email invitations: send them this link yourself. Whoever opens it can join as them."
      value={delivery.link}
    />
  );
}
